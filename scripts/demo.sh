#!/usr/bin/env bash
# The demo (README's first command): installs what it needs, starts the emulator with a state file,
# runs `pulumi up` on the root Pulumi.yaml program (demo/index.ts) against it, and shows the result:
# the flags and their definitions in each environment, the team, the project, connector and
# pipeline, and the treatments that the real feature-flag SDK gives a few sample keys.
#
# Everything lives under .state/ (emulator state, Pulumi file backend, PULUMI_HOME and the stack
# config file), so running it again changes nothing and `rm -rf .state` starts over.
# Environment: FLAGSTACK_DEMO_PORT (default 8787), FLAGSTACK_DEMO_STATE (default .state),
# PULUMI_CONFIG_PASSPHRASE (default: a fixed demo passphrase; the demo's secrets are the emulator's
# local keys).
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FLAGSTACK_ROOT"

bash scripts/setup.sh --pulumi
flagstack_use_node
flagstack_use_pulumi

state="${FLAGSTACK_DEMO_STATE:-$FLAGSTACK_ROOT/.state}"
mkdir -p "$state"; state=$(cd "$state" && pwd)
port="${FLAGSTACK_DEMO_PORT:-8787}"
url="http://127.0.0.1:$port"
# Fixed local keys: the emulator accepts exactly these, and the stack config holds them (encrypted).
admin_key="demo-admin-key"
sdk_key="demo-sdk-key-production"
platform_key="demo-platform-key"
account="demo-account"
stack="demo"
# The stack config lives with the rest of the demo state rather than beside Pulumi.yaml.
config_file="$state/Pulumi.$stack.yaml"

# The emulator state, the Pulumi state and the stack config (whose salt encrypts the secrets in the
# Pulumi state) belong together: when one is missing, start all three afresh.
if [ ! -f "$state/emulator-state.json" ] || [ ! -d "$state/backend" ] || [ ! -f "$config_file" ]; then
  rm -rf "$state/emulator-state.json" "$state/backend" "$config_file"
fi
mkdir -p "$state/backend" "$state/pulumi-home"

export PULUMI_HOME="$state/pulumi-home"
export PULUMI_BACKEND_URL="file://$state/backend"
export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE-flagstack-demo}"

# Exit status 0 when something answers HTTP at $1 (curl may not be installed; node is).
answers() { node -e 'fetch(process.argv[1]).then(() => process.exit(0), () => process.exit(1))' "$1"; }
if answers "$url/_emulator/requests"; then
  echo "demo: port $port is already in use; set FLAGSTACK_DEMO_PORT to a free port" >&2
  exit 1
fi

echo "demo: starting the emulator on $url (state: $state/emulator-state.json)"
node bin/flagstack.js emulator --port "$port" --state "$state/emulator-state.json" \
  --admin-key "$admin_key" --sdk-key "$sdk_key" --platform-key "$platform_key" --account "$account" \
  >"$state/emulator.log" 2>&1 &
emulator_pid=$!
stop_emulator() { kill "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null || true; }
trap stop_emulator EXIT
for _ in $(seq 1 100); do
  if answers "$url/_emulator/requests"; then break; fi
  if ! kill -0 "$emulator_pid" 2>/dev/null; then
    echo "demo: the emulator did not start:" >&2
    cat "$state/emulator.log" >&2
    exit 1
  fi
  sleep 0.1
done

if ! pulumi stack select "$stack" >/dev/null 2>&1; then
  pulumi stack init "$stack" >/dev/null
  # `stack init` writes the config file (with the salt of the stack's secrets) beside Pulumi.yaml.
  mv "$FLAGSTACK_ROOT/Pulumi.$stack.yaml" "$config_file"
fi
# The provider's credentials come from stack config; the keys are stored encrypted.
cfg() { pulumi config set -s "$stack" --config-file "$config_file" "$@" >/dev/null; }
cfg flagstack:adminApiUrl "$url"
cfg flagstack:platformApiUrl "$url"
cfg flagstack:accountId "$account"
if ! grep -q "flagstack:adminApiKey" "$config_file"; then
  cfg --secret flagstack:adminApiKey "$admin_key"
  cfg --secret flagstack:platformApiKey "$platform_key"
fi

echo "demo: pulumi up"
pulumi up -s "$stack" --config-file "$config_file" --yes --skip-preview --color never --suppress-progress
pulumi stack output -s "$stack" --json >"$state/outputs.json"

# The emulator's banner lists the SDK key of each environment ("  SDK keys  Production: k, Staging: k").
sdk_keys=$(sed -n 's/^ *SDK keys *//p' "$state/emulator.log")
echo
node --import tsx scripts/show-demo.ts --url "$url" --admin-key "$admin_key" --platform-key "$platform_key" \
  --account "$account" --sdk-keys "$sdk_keys" --outputs "$state/outputs.json"
