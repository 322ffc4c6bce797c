# A long-running platform command, waited for as a pipeline would. scripts/demo.sh
# creates it on the emulator from purge-command.json and passes its id.
variable "command_id" {
  type        = string
  description = "Id of the platform command to follow (TF_VAR_command_id)."
}

data "mediaplatform_command" "purge" {
  id                  = var.command_id
  wait_for_completion = true
  fail_on_error       = true

  timeouts {
    read = "2m"
  }
}

output "purge_command" {
  description = "The finished bulk command: one entity failed, so its result says why."
  value = {
    type      = data.mediaplatform_command.purge.type
    creator   = data.mediaplatform_command.purge.creator
    lifecycle = data.mediaplatform_command.purge.lifecycle_state
    progress  = data.mediaplatform_command.purge.progress
    succeeded = data.mediaplatform_command.purge.success_count
    failed    = data.mediaplatform_command.purge.failure_count
    failures  = [for r in data.mediaplatform_command.purge.results : r.error_message if !r.success]
  }
}
