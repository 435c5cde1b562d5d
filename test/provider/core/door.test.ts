/**
 * The words of the door (`provider/core/door.ts`): the Pulumi doors' messages name Pulumi's
 * commands and the stack; the Terraform door's name Terraform's commands and the configuration's
 * directory, in the update guard's failures and a change request's default title and comment.
 */
import { basename } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { changeNote, stackLabel } from "../../../provider/core/config";
import { door, PULUMI_WORDS, TERRAFORM_WORDS, useDoor } from "../../../provider/core/door";
import { ChangedSinceRecordedError, GoneSinceRecordedError } from "../../../provider/core/guard";
import { ChangedDuringUpdateError } from "../../../provider/core/if-match";

afterEach(() => {
  useDoor(PULUMI_WORDS);
  vi.unstubAllEnvs();
});

const conflict = [{ field: "trafficAllocation", recorded: 80, live: 60, desired: 90 }];
const settings = {} as Parameters<typeof changeNote>[2];

describe("the Pulumi doors (the default)", () => {
  it("name the stack and Pulumi's commands", () => {
    vi.stubEnv("PULUMI_PROJECT", "shop");
    vi.stubEnv("PULUMI_STACK", "dev");
    expect(door()).toBe(PULUMI_WORDS);
    expect(stackLabel()).toBe("shop/dev");
    expect(changeNote("update", 'flag "x"', settings)).toEqual({
      title: "pulumi up: shop/dev",
      comment: 'update of flag "x" by flagstack (Pulumi stack shop/dev)',
    });
    expect(new GoneSinceRecordedError('flag "x"').message).toBe(
      'flag "x" was deleted outside Pulumi since its state was recorded; nothing was written. ' +
        "Run `pulumi refresh` (it removes the object from the state) and `pulumi up` to create it again, or `pulumi up --refresh`.",
    );
    expect(new ChangedSinceRecordedError('flag "x"', conflict).message).toMatch(
      /^flag "x" was changed outside Pulumi since .*\nNothing was written\. Run `pulumi refresh` to record the live values \(the next `pulumi preview` then shows exactly what `pulumi up` will change\), or `pulumi up --refresh`\.$/s,
    );
  });
});

describe("the Terraform door", () => {
  it("a setting the provider lacks: the provider block's attribute, not `pulumi config set`", () => {
    useDoor(TERRAFORM_WORDS);
    expect(TERRAFORM_WORDS.setting("flagstack:adminApiKey", true)).toBe(
      "set `admin_api_key` in the provider block",
    );
    expect(PULUMI_WORDS.setting("flagstack:adminApiKey", true)).toBe(
      "run `pulumi config set flagstack:adminApiKey --secret <value>`",
    );
    expect(TERRAFORM_WORDS.replace("the segment")).toBe(
      "`terraform apply -replace=<address>` of the segment",
    );
  });

  it("names the configuration's directory and Terraform's commands", () => {
    useDoor(TERRAFORM_WORDS);
    const dir = basename(process.cwd());
    expect(stackLabel()).toBe(dir);
    expect(changeNote("update", 'flag "x"', settings)).toEqual({
      title: `terraform apply: ${dir}`,
      comment: `update of flag "x" by flagstack (Terraform configuration ${dir})`,
    });
    expect(new GoneSinceRecordedError('flag "x"').message).toBe(
      'flag "x" was deleted outside Terraform since its state was recorded; nothing was written. ' +
        "Run `terraform apply -refresh-only` (it removes the object from the state) and `terraform apply` to create it again, " +
        "or `terraform apply` (without `-refresh=false`).",
    );
    expect(new ChangedDuringUpdateError('flag "x"', 3, undefined).message).toBe(
      'flag "x" was changed outside Terraform while this update ran (after it read version 3, before its write); ' +
        "the service refused the write, so nothing was overwritten. Run `terraform apply -refresh-only` to record the " +
        "live values (the next `terraform plan` then shows exactly what `terraform apply` will change), " +
        "or `terraform apply` (without `-refresh=false`).",
    );
  });
});
