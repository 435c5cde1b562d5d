# Many flags in HCL, for Terraform and OpenTofu, in the shape that stays linear at thousands of
# flags (docs/terraform.md "Thousands of flags"): one `module` block per flag, the module
# (`./flag`) holding the flag and one resource of its definitions, a map by environment. Every
# expression has a few elements and every reference names one resource, so each flag costs
# OpenTofu the same at any number of flags. A flag is added with a block of its own:
#
#   module "checkout" {
#     source  = "./flag"
#     name    = "new-checkout"
#     on_keys = ["qa-bot"]
#   }
#
# FLAGSTACK_ADMIN_API_URL and FLAGSTACK_ADMIN_API_KEY configure the provider
# (test/e2e/terraform-flags-example.test.ts applies it with OpenTofu against the emulator).
# `npx flagstack terraform install` first (docs/terraform.md).
terraform {
  required_providers {
    flagstack = {
      source = "flagstack.local/flagstack/flagstack"
    }
  }
}

provider "flagstack" {}

module "search" {
  source      = "./flag"
  name        = "new-search"
  description = "The search page on the new index"
  on_keys     = ["qa-bot", "alice@example.com"]
  percent     = { Staging = 100, Production = 10 }
}

module "checkout" {
  source      = "./flag"
  name        = "one-page-checkout"
  description = "Checkout on a single page"
  percent     = { Staging = 50 }
}

module "dark_mode" {
  source      = "./flag"
  name        = "dark-mode"
  description = "The dark theme"
  tags        = ["owner:web", "area:theme"]
}

output "flags" {
  value = [module.search.name, module.checkout.name, module.dark_mode.name]
}
