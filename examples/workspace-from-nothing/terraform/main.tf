# The workspace-from-nothing story in HCL, for Terraform and OpenTofu: the same objects as
# `../index.ts` (test/e2e/terraform-story.test.ts applies it with OpenTofu against the emulator).
# Production requires approvals: its segment members and its definition go out as change
# requests, and `production_change` names the pending one until an approver (any admin key but
# the one that submitted it) approves it. FLAGSTACK_ADMIN_API_URL and FLAGSTACK_ADMIN_API_KEY
# configure the provider. `npx flagstack terraform install` first (docs/terraform.md).
terraform {
  required_providers {
    flagstack = {
      source = "flagstack.local/flagstack/flagstack"
    }
  }
}

# Ramping Production is a change request too; with wait_for_approval_seconds set, apply waits
# for a colleague's approval instead of leaving the request pending:
#   tofu apply -var production_percent=10 -var wait_for_approval_seconds=120
variable "production_percent" {
  type    = number
  default = 0
}

variable "wait_for_approval_seconds" {
  type    = number
  default = 0
}

resource "flagstack_workspace" "storefront" {
  name                        = "Storefront"
  requires_title_and_comments = true
}

resource "flagstack_group" "approvers" {
  name        = "storefront-approvers"
  description = "Approve changes to Storefront's Production"
}

resource "flagstack_environment" "staging" {
  workspace  = flagstack_workspace.storefront.name
  name       = "Staging"
  production = false
}

resource "flagstack_environment" "production" {
  workspace  = flagstack_workspace.storefront.name
  name       = "Production"
  production = true
  change_permissions = {
    are_approvals_required = true
    approvers              = [{ type = "group", id = flagstack_group.approvers.group_id }]
  }
}

locals {
  environments = {
    Staging    = flagstack_environment.staging
    Production = flagstack_environment.production
  }
  members = {
    Staging    = ["acct-qa-1", "acct-qa-2", "acct-acme"]
    Production = ["acct-acme", "acct-globex"]
  }
  percent = { Staging = 100, Production = var.production_percent }
}

resource "flagstack_traffic_type" "account" {
  workspace = flagstack_workspace.storefront.name
  name      = "account"
}

resource "flagstack_traffic_type_attribute" "plan" {
  workspace        = flagstack_workspace.storefront.name
  traffic_type     = flagstack_traffic_type.account.name
  attribute_id     = "plan"
  display_name     = "Plan"
  description      = "The account's billing plan"
  data_type        = "STRING"
  suggested_values = ["free", "pro", "enterprise"]
  is_searchable    = true
}

resource "flagstack_traffic_type_attribute" "country" {
  workspace    = flagstack_workspace.storefront.name
  traffic_type = flagstack_traffic_type.account.name
  attribute_id = "country"
  display_name = "Country"
  description  = "ISO 3166 country code of the account"
  data_type    = "STRING"
}

resource "flagstack_segment" "beta" {
  workspace    = flagstack_workspace.storefront.name
  traffic_type = flagstack_traffic_type.account.name
  name         = "beta_accounts"
  description  = "Accounts that try search features first"
  tags         = ["owner:storefront"]
}

resource "flagstack_segment_keys" "beta" {
  for_each       = local.environments
  workspace      = flagstack_workspace.storefront.name
  environment    = each.value.name
  segment        = flagstack_segment.beta.name
  keys           = local.members[each.key]
  title          = "Beta accounts"
  comment        = "Accounts under the beta agreement"
  change_request = { approvers = [flagstack_group.approvers.name] }
}

resource "flagstack_flag_set" "web" {
  workspace   = flagstack_workspace.storefront.name
  name        = "storefront_web"
  description = "Flags the storefront web app downloads"
}

resource "flagstack_flag" "search" {
  workspace    = flagstack_workspace.storefront.name
  traffic_type = flagstack_traffic_type.account.name
  name         = "new-search"
  description  = "The search page on the new index"
  tags         = ["owner:storefront", "area:search"]
  owners       = [{ type = "group", id = flagstack_group.approvers.group_id }]
}

resource "flagstack_flag_definition" "search" {
  for_each           = local.environments
  workspace          = flagstack_workspace.storefront.name
  flag               = flagstack_flag.search.name
  environment        = each.value.name
  treatments         = [{ name = "on" }, { name = "off" }]
  default_treatment  = "off"
  baseline_treatment = "off"
  flag_sets          = [flagstack_flag_set.web.flag_set_id]
  rules = [{
    condition = { matchers = [{ type = "IN_SEGMENT", string = flagstack_segment.beta.name }] }
    buckets   = [{ treatment = "on", size = 100 }]
  }]
  default_rule = [
    { treatment = "on", size = local.percent[each.key] },
    { treatment = "off", size = 100 - local.percent[each.key] },
  ]
  title          = "New search at ${local.percent[each.key]}% in ${each.key}"
  comment        = "Search rollout plan, step by step"
  change_request = each.key == "Production" ? { approvers = [flagstack_group.approvers.name] } : null
  wait_for_approval = (each.key == "Production" && var.wait_for_approval_seconds > 0
    ? { timeout_seconds = var.wait_for_approval_seconds, poll_seconds = 1 }
  : null)
  # The rule names the segment, which must be active in the environment first.
  depends_on = [flagstack_segment_keys.beta]
}

resource "flagstack_api_key" "server" {
  for_each     = local.environments
  name         = "storefront-${lower(each.key)}-server"
  api_key_type = "server_side"
  workspace    = flagstack_workspace.storefront.name
  environments = [each.value.name]
}

output "workspace_id" {
  value = flagstack_workspace.storefront.workspace_id
}
output "flag_set_id" {
  value = flagstack_flag_set.web.flag_set_id
}
output "server_side_sdk_keys" {
  value     = { for k, v in flagstack_api_key.server : k => v.key }
  sensitive = true
}
output "production_change" {
  value = flagstack_flag_definition.search["Production"].pending_change_request
}
