# The settings are a singleton: any import ID selects them.
terraform import mediaplatform_external_authentication.this external-authentication
