# Every harness_fme_* resource and data source of the Harness Terraform provider, in one Harness
# project made through the platform API (harness-provider.test.ts). `var.step` 2 changes one
# attribute of each resource.
terraform {
  required_providers {
    harness = {
      source = "harness/harness"
    }
  }
}

variable "endpoint" {
  type = string
}

variable "account_id" {
  type = string
}

variable "platform_api_key" {
  type      = string
  sensitive = true
}

variable "step" {
  type    = number
  default = 1
}

provider "harness" {
  endpoint         = var.endpoint
  account_id       = var.account_id
  platform_api_key = var.platform_api_key
}

locals {
  two = var.step == 2
}

resource "harness_platform_organization" "org" {
  identifier = "fmeorg"
  name       = "fmeorg"
}

resource "harness_platform_project" "proj" {
  identifier = "fmeproj"
  org_id     = harness_platform_organization.org.id
  name       = "fmeproj"
}

locals {
  org     = harness_platform_organization.org.id
  project = harness_platform_project.proj.id
}

data "harness_fme_workspace" "ws" {
  org_id     = local.org
  project_id = local.project
}

data "harness_fme_traffic_type" "user" {
  org_id     = local.org
  project_id = local.project
  name       = "user"
}

resource "harness_fme_traffic_type" "account" {
  org_id     = local.org
  project_id = local.project
  name       = local.two ? "company" : "account"
}

data "harness_fme_traffic_type" "account" {
  org_id     = local.org
  project_id = local.project
  name       = harness_fme_traffic_type.account.name
}

resource "harness_fme_traffic_type_attribute" "plan" {
  org_id          = local.org
  project_id      = local.project
  traffic_type_id = harness_fme_traffic_type.account.traffic_type_id
  identifier      = "plan"
  display_name    = local.two ? "Billing plan" : "Plan"
  data_type       = "string"
  description     = "the plan"
  is_searchable   = true
}

resource "harness_fme_environment" "env" {
  org_id     = local.org
  project_id = local.project
  name       = local.two ? "qa2" : "qa"
  production = false
}

data "harness_fme_environment" "env" {
  org_id     = local.org
  project_id = local.project
  name       = harness_fme_environment.env.name
}

resource "harness_fme_api_key" "server" {
  org_id         = local.org
  project_id     = local.project
  environment_id = harness_fme_environment.env.environment_id
  name           = local.two ? "server2" : "server"
  api_key_type   = "server_side"
}

resource "harness_fme_flag_set" "set" {
  org_id      = local.org
  project_id  = local.project
  name        = "backend"
  description = local.two ? "backend flags, v2" : "backend flags"
}

data "harness_fme_flag_set" "set" {
  org_id     = local.org
  project_id = local.project
  name       = harness_fme_flag_set.set.name
}

resource "harness_fme_feature_flag" "flag" {
  org_id          = local.org
  project_id      = local.project
  traffic_type_id = data.harness_fme_traffic_type.user.traffic_type_id
  name            = "checkout"
  description     = local.two ? "the new checkout" : "checkout"
  tags            = ["team-a"]
}

resource "harness_fme_feature_flag_definition" "def" {
  org_id         = local.org
  project_id     = local.project
  environment_id = harness_fme_environment.env.environment_id
  flag_name      = harness_fme_feature_flag.flag.name
  definition = jsonencode({
    treatments       = [{ name = "on" }, { name = "off" }]
    defaultTreatment = local.two ? "on" : "off"
    defaultRule      = [{ treatment = local.two ? "on" : "off", size = 100 }]
  })
}

resource "harness_fme_segment" "seg" {
  org_id          = local.org
  project_id      = local.project
  traffic_type_id = data.harness_fme_traffic_type.user.traffic_type_id
  name            = "beta"
  description     = local.two ? "beta testers, v2" : "beta testers"
}

resource "harness_fme_segment_environment_association" "seg" {
  org_id         = local.org
  project_id     = local.project
  environment_id = harness_fme_environment.env.environment_id
  segment_name   = harness_fme_segment.seg.name
  # A segment's replacement takes it out of every environment (the service drops a deleted
  # segment's activations); the association is made again with it.
  lifecycle {
    replace_triggered_by = [harness_fme_segment.seg]
  }
}

resource "harness_fme_environment_segment_keys" "seg" {
  org_id         = local.org
  project_id     = local.project
  environment_id = harness_fme_environment.env.environment_id
  segment_name   = harness_fme_segment_environment_association.seg.segment_name
  keys           = local.two ? ["alice", "carol"] : ["alice", "bob"]
  lifecycle {
    replace_triggered_by = [harness_fme_segment_environment_association.seg]
  }
}

resource "harness_fme_large_segment" "large" {
  org_id          = local.org
  project_id      = local.project
  traffic_type_id = data.harness_fme_traffic_type.user.traffic_type_id
  name            = "everyone"
  description     = local.two ? "all users, v2" : "all users"
}

data "harness_fme_large_segment" "large" {
  org_id     = local.org
  project_id = local.project
  name       = harness_fme_large_segment.large.name
}

resource "harness_fme_large_segment_environment_association" "large" {
  org_id         = local.org
  project_id     = local.project
  environment_id = harness_fme_environment.env.environment_id
  segment_name   = harness_fme_large_segment.large.name
  lifecycle {
    replace_triggered_by = [harness_fme_large_segment.large]
  }
}

resource "harness_fme_rule_based_segment" "rbs" {
  org_id          = local.org
  project_id      = local.project
  traffic_type_id = data.harness_fme_traffic_type.user.traffic_type_id
  name            = local.two ? "power_users" : "staff"
}

resource "harness_fme_rule_based_segment_environment_association" "rbs" {
  org_id         = local.org
  project_id     = local.project
  environment_id = harness_fme_environment.env.environment_id
  segment_name   = harness_fme_rule_based_segment.rbs.name
  definition_json = jsonencode({
    rules = [{
      condition = {
        combiner = "AND"
        matchers = [{ type = "IN_LIST_STRING", attribute = "email", strings = local.two ? ["a@x.io", "b@x.io"] : ["a@x.io"] }]
      }
    }]
  })
}

output "workspace" {
  value = {
    id                          = data.harness_fme_workspace.ws.workspace_id
    name                        = data.harness_fme_workspace.ws.name
    org_id                      = data.harness_fme_workspace.ws.org_id
    project_id                  = data.harness_fme_workspace.ws.project_id
    requires_title_and_comments = data.harness_fme_workspace.ws.requires_title_and_comments
  }
}

output "lookups" {
  value = {
    environment_id   = data.harness_fme_environment.env.environment_id
    production       = data.harness_fme_environment.env.production
    flag_set_id      = data.harness_fme_flag_set.set.flag_set_id
    flag_set_desc    = data.harness_fme_flag_set.set.description
    large_segment_id = data.harness_fme_large_segment.large.large_segment_id
    large_segment_tt = data.harness_fme_large_segment.large.traffic_type_id
    traffic_type_id  = data.harness_fme_traffic_type.account.traffic_type_id
  }
}
