/**
 * The words of the door this process serves: the commands a message tells its reader to run and
 * the name of the tool, so that a Terraform user is never told to run `pulumi up`. The Pulumi
 * doors (the dynamic resources, the native provider) are the default; the Terraform door's plugin
 * process says which door it is at start ({@link useDoor}).
 * @module
 */
import { basename } from "node:path";

/** What a message names, in one door's terms. */
export interface DoorWords {
  /** The tool, as in "changed outside Pulumi". */
  tool: string;
  /** The command that applies the program or configuration, quoted: "`pulumi up`". */
  apply: string;
  /** The command that shows what `apply` would change. */
  preview: string;
  /** The command that records the live values in the state and changes nothing else. */
  refresh: string;
  /** The apply that reads the live values first. */
  applyRefreshing: string;
  /** The command that deletes everything the program or configuration manages. */
  destroy: string;
  /** How to replace an object deliberately, and what else with it (`the segment and ...`) when it says. */
  replace: (what?: string) => string;
  /** How to give the provider a setting (`flagstack:adminApiKey`) it lacks. */
  setting: (key: string, secret: boolean) => string;
  /** What a change request's default title and comment name: the stack, or the configuration. */
  origin: (env: NodeJS.ProcessEnv) => { short: string; long: string };
  /** The input that takes over an existing object, as the program writes it: "`adopt: true`". */
  adopt: string;
  /**
   * How to manage an object that exists already, which a create met: `target` names its resource
   * type and import id where the door knows them (the Terraform door names the `import` block).
   */
  takeOver: (target?: { type: string; id?: string }) => string;
  /** What to run when an interrupted apply may have made the object a create met. */
  interruptedRun: string;
}

/** The Pulumi doors' words. */
export const PULUMI_WORDS: DoorWords = {
  tool: "Pulumi",
  apply: "`pulumi up`",
  preview: "`pulumi preview`",
  refresh: "`pulumi refresh`",
  applyRefreshing: "`pulumi up --refresh`",
  destroy: "`pulumi destroy`",
  replace: (what) => `\`pulumi up --replace\`${what ? ` of ${what}` : ""}`,
  setting: (key, secret) => `run \`pulumi config set ${key}${secret ? " --secret" : ""} <value>\``,
  origin: (env) => {
    const project = env.PULUMI_NODEJS_PROJECT ?? env.PULUMI_PROJECT;
    const stack = env.PULUMI_NODEJS_STACK ?? env.PULUMI_STACK;
    const short = project && stack ? `${project}/${stack}` : (project ?? stack ?? "unknown stack");
    return { short, long: `Pulumi stack ${short}` };
  },
  adopt: "`adopt: true`",
  takeOver: () => "Set `adopt: true` on the resource to manage the existing one, or choose another name.",
  interruptedRun:
    "If an interrupted `pulumi up` (killed, or stopped by a CI timeout) may have made it, run `npx flagstack recover`: " +
    "it takes the objects of that run into the state.",
};

/**
 * The Terraform door's words (OpenTofu takes the same commands as `tofu`): `plan` and `apply`
 * refresh unless given `-refresh=false`. Terraform starts the provider in the configuration's
 * directory, whose name the change requests carry.
 */
export const TERRAFORM_WORDS: DoorWords = {
  tool: "Terraform",
  apply: "`terraform apply`",
  preview: "`terraform plan`",
  refresh: "`terraform apply -refresh-only`",
  applyRefreshing: "`terraform apply` (without `-refresh=false`)",
  destroy: "`terraform destroy`",
  replace: (what) => `\`terraform apply -replace=<address>\`${what ? ` of ${what}` : ""}`,
  setting: (key) =>
    `set \`${key.replace(/^flagstack:/, "").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}\` in the provider block`,
  origin: () => {
    const dir = basename(process.cwd()) || "/";
    return { short: dir, long: `Terraform configuration ${dir}` };
  },
  adopt: "`adopt = true`",
  takeOver: (target) => {
    const block =
      target?.id === undefined
        ? `an \`import\` block (\`to\` its resource address${target ? `, ${target.type}.<name>` : ""}, \`id\` its import id)`
        : `an \`import\` block, \`import { to = ${target.type}.<name> id = ${JSON.stringify(target.id)} }\` (<name> the resource's name in the configuration)`;
    return `To manage the existing one, import it with ${block}, or set \`adopt = true\` on the resource; or choose another name.`;
  },
  interruptedRun: interruptedApply("`npx flagstack terraform recover`"),
};

/**
 * What the Terraform door says to run after an interrupted apply, naming `recover`, the command
 * as the reader runs it (the provider binary names its own: `../binary.ts`).
 */
export function interruptedApply(recover: string): string {
  return (
    `If an interrupted \`terraform apply\` (killed, or stopped by a CI timeout) may have made it, run ${recover}: ` +
    "it writes the `import` blocks, with their resource addresses, of every object of that run the state does not hold."
  );
}

// On globalThis under a registered symbol, as `./config.ts` keeps its clients: two copies of this
// module in one process (the package's source and its build) share one door.
const DOOR_KEY = Symbol.for("flagstack.provider.door");

/** The words of the door this process serves. */
export function door(): DoorWords {
  return (globalThis as unknown as Record<symbol, DoorWords | undefined>)[DOOR_KEY] ?? PULUMI_WORDS;
}

/** Says which door this process serves (the Terraform plugin at start; tests). */
export function useDoor(words: DoorWords): void {
  (globalThis as unknown as Record<symbol, DoorWords | undefined>)[DOOR_KEY] = words;
}
