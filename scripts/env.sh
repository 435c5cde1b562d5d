# Sourced by every project script: puts Node 24 (LTS) first on PATH and, when asked, the Pulumi CLI.
# The machine's own Node may be older (Node 20 is past end of life), so the project installs the
# npm registry's `node@24` package into .tools/node24 and uses that. Nothing outside the repo changes.
# shellcheck shell=bash
FLAGSTACK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export FLAGSTACK_ROOT

flagstack_node_ok() { command -v node >/dev/null 2>&1 && [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "24" ]; }

flagstack_use_node() {
  local dir="$FLAGSTACK_ROOT/.tools/node24"
  if [ -x "$dir/node_modules/.bin/node" ]; then PATH="$dir/node_modules/.bin:$PATH"; fi
  if ! flagstack_node_ok; then
    command -v npm >/dev/null 2>&1 || { echo "flagstack: npm is needed to install Node 24 (install Node.js and npm first)" >&2; return 1; }
    echo "flagstack: installing Node 24 (LTS) from the npm registry into .tools/node24" >&2
    mkdir -p "$dir"
    (cd "$dir" && [ -f package.json ] || echo '{"private":true}' > package.json)
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error node@24 >&2 || return 1
    PATH="$dir/node_modules/.bin:$PATH"
    flagstack_node_ok || { echo "flagstack: Node 24 did not install" >&2; return 1; }
  fi
  export PATH
}

# The Pulumi CLI: one already on PATH at v3.259.0 or newer, else the one built from Go modules by
# ../shared/toolchain/pulumi/build.sh (first build: about six minutes on 2 cores).
flagstack_use_pulumi() {
  if command -v pulumi >/dev/null 2>&1; then
    local v; v=$(pulumi version 2>/dev/null | sed 's/^v//')
    if [ -n "$v" ] && [ "$(printf '%s\n3.259.0\n' "$v" | sort -V | head -n1)" = "3.259.0" ]; then return 0; fi
  fi
  local build="${FLAGSTACK_PULUMI_BUILD:-$FLAGSTACK_ROOT/../shared/toolchain/pulumi/build.sh}"
  if [ -x "$build" ] || [ -f "$build" ]; then
    local bin; bin=$(bash "$build" | tail -n 1) || {
      echo "flagstack: building the Pulumi CLI failed; install Pulumi v3.259.0 or newer (https://www.pulumi.com/docs/install/) and put it on PATH" >&2
      return 1
    }
    PATH="$bin:$PATH"; export PATH
    return 0
  fi
  echo "flagstack: no Pulumi CLI found. Install Pulumi v3.259.0 or newer and put it on PATH" >&2
  return 1
}

# OpenTofu (`tofu`, the engine of the Terraform door's tests): one already on PATH, else the one
# built from Go modules by ../shared/toolchain/opentofu/build.sh (first build: about six minutes on
# 2 cores, instant afterwards). The build script checks its binary with `tofu version`, which
# prints a warning first when TF_CLI_CONFIG_FILE names a missing file: it runs without it.
flagstack_use_tofu() {
  if command -v tofu >/dev/null 2>&1; then return 0; fi
  local build="${FLAGSTACK_TOFU_BUILD:-$FLAGSTACK_ROOT/../shared/toolchain/opentofu/build.sh}"
  if [ -f "$build" ]; then
    local bin; bin=$(env -u TF_CLI_CONFIG_FILE bash "$build" | tail -n 1) || {
      echo "flagstack: building OpenTofu failed; install OpenTofu 1.12 (or Terraform 1.x as tofu) and put it on PATH" >&2
      return 1
    }
    PATH="$bin:$PATH"; export PATH
    return 0
  fi
  echo "flagstack: no OpenTofu CLI found. Install OpenTofu 1.12 and put it on PATH" >&2
  return 1
}

# Offline engine settings shared by the demo, the examples and the tests.
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_DISABLE_REGISTRY_RESOLVE=true
