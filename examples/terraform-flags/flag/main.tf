# One flag and its definition in each environment: the module `../main.tf` calls once per flag.
# The definitions are one resource (`flagstack_flag_definitions`, a map by environment built from
# this flag's environments only) naming this module's one flag, so no expression here grows with
# the number of flags, and each flag is two resources for OpenTofu to walk, whatever the number of
# environments.
terraform {
  required_providers {
    flagstack = {
      source = "flagstack.local/flagstack/flagstack"
    }
  }
}

variable "name" {
  type = string
}

variable "description" {
  type    = string
  default = null
}

variable "workspace" {
  type    = string
  default = "Default"
}

variable "tags" {
  type    = list(string)
  default = ["owner:web"]
}

variable "environments" {
  description = "The environments the flag is defined in."
  type        = set(string)
  default     = ["Staging", "Production"]
}

variable "on_keys" {
  description = "Keys that always get `on`."
  type        = list(string)
  default     = []
}

variable "percent" {
  description = "The share of the rest that gets `on`, by environment (0 where not given)."
  type        = map(number)
  default     = {}
}

resource "flagstack_flag" "this" {
  workspace   = var.workspace
  name        = var.name
  description = var.description
  tags        = var.tags
}

resource "flagstack_flag_definitions" "this" {
  workspace = var.workspace
  flag      = flagstack_flag.this.name
  definitions = { for env in var.environments : env => {
    treatments        = [{ name = "on", keys = var.on_keys }, { name = "off" }]
    default_treatment = "off"
    default_rule = [
      { treatment = "on", size = lookup(var.percent, env, 0) },
      { treatment = "off", size = 100 - lookup(var.percent, env, 0) },
    ]
  } }
}

output "name" {
  value = flagstack_flag.this.name
}
