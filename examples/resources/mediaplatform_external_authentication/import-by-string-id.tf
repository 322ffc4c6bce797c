# The settings are a singleton: any import ID selects them.
import {
  to = mediaplatform_external_authentication.this
  id = "external-authentication"
}
