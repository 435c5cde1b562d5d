# The Harness provider's platform half in one configuration (harness-provider.test.ts): an
# organization, a project, an environment, a service, a pipeline and an input set. `var.step` 2
# changes the description of each.
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
  description = var.step == 2 ? "second" : "first"
}

resource "harness_platform_organization" "org" {
  identifier  = "platorg"
  name        = "platorg"
  description = local.description
}

resource "harness_platform_project" "proj" {
  identifier  = "platproj"
  org_id      = harness_platform_organization.org.id
  name        = "platproj"
  description = local.description
}

resource "harness_platform_environment" "env" {
  identifier  = "dev"
  org_id      = harness_platform_organization.org.id
  project_id  = harness_platform_project.proj.id
  name        = "dev"
  type        = "PreProduction"
  description = local.description
}

resource "harness_platform_service" "svc" {
  identifier  = "api"
  org_id      = harness_platform_organization.org.id
  project_id  = harness_platform_project.proj.id
  name        = "api"
  description = local.description
}

resource "harness_platform_pipeline" "pipe" {
  identifier = "build"
  org_id     = harness_platform_organization.org.id
  project_id = harness_platform_project.proj.id
  name        = "build"
  description = local.description
  yaml        = <<-YAML
    pipeline:
      name: build
      identifier: build
      projectIdentifier: ${harness_platform_project.proj.id}
      orgIdentifier: ${harness_platform_organization.org.id}
      description: ${local.description}
      variables:
        - name: greeting
          type: String
          value: <+input>
      stages:
        - stage:
            name: run
            identifier: run
            type: Custom
            spec:
              execution:
                steps:
                  - step:
                      name: echo
                      identifier: echo
                      type: ShellScript
                      spec:
                        shell: Bash
                        onDelegate: true
                        source:
                          type: Inline
                          spec:
                            script: echo hello
  YAML
}

resource "harness_platform_input_set" "inputs" {
  identifier  = "hello"
  org_id      = harness_platform_organization.org.id
  project_id  = harness_platform_project.proj.id
  pipeline_id = harness_platform_pipeline.pipe.id
  name        = "hello"
  description = local.description
  yaml        = <<-YAML
    inputSet:
      name: hello
      identifier: hello
      orgIdentifier: ${harness_platform_organization.org.id}
      projectIdentifier: ${harness_platform_project.proj.id}
      description: ${local.description}
      pipeline:
        identifier: ${harness_platform_pipeline.pipe.id}
        variables:
          - name: greeting
            type: String
            value: hi
  YAML
}
