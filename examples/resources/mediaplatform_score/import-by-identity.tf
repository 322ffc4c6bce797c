# The identity of a score is its UUID (Terraform 1.12 and later).
import {
  to = mediaplatform_score.symphony
  identity = {
    id = "4f0c6b1e-8d3a-4b7e-9a51-2c6d8e0f1a23"
  }
}
