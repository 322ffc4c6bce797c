variable "command_id" {
  type        = string
  description = "Id of a running platform command, e.g. c-42."
}

# Cancel it with: terraform apply -invoke=action.mediaplatform_cancel_command.purge
# (Terraform 1.14 and later). The action reports the command's progress and how
# it ended; a command that already finished cannot be canceled.
action "mediaplatform_cancel_command" "purge" {
  config {
    id = var.command_id
  }
}
