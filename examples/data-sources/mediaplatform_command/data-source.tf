variable "command_id" {
  type        = string
  description = "Id of a long-running platform command started earlier in the pipeline."
}

# Waits until the command has finished and fails the run if it ended in error: a
# pipeline gate on a long-running platform command.
data "mediaplatform_command" "purge" {
  id                  = var.command_id
  wait_for_completion = true
  fail_on_error       = true

  timeouts {
    read = "30m"
  }
}

output "purge" {
  value = {
    lifecycle = data.mediaplatform_command.purge.lifecycle_state
    progress  = data.mediaplatform_command.purge.progress
    # results is null for a command that is not a bulk command.
    failed = [for r in coalesce(data.mediaplatform_command.purge.results, []) : r.error_message if !r.success]
  }
}
