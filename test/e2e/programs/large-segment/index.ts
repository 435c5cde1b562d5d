/**
 * One `LargeSegment` active in Production whose members there are a file: `members.csv`, which
 * the program writes beside itself from stack config before declaring the resource (the provider
 * reads it from the program's directory). Config: `members` (how many, `user-0` ... `user-<n-1>`)
 * and `swap` (optional: a key written in place of `user-0`).
 * Stack output `segment`: the resource's recorded `members` (count, digest, change request).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { LargeSegment } from "flagstack/provider";

const config = new pulumi.Config();
const count = config.requireNumber("members");
const swap = config.get("swap");

const lines: string[] = new Array(count);
for (let i = 0; i < count; i++) lines[i] = `user-${i}`;
if (swap !== undefined) lines[0] = swap;
writeFileSync(join(__dirname, "members.csv"), `key\n${lines.join("\n")}\n`);

const segment = new LargeSegment("crm", {
  workspace: "Default",
  name: "crm_customers",
  description: "CRM export",
  environments: ["Production"],
  members: [{ environment: "Production", file: "members.csv" }],
  changeRequest: { title: "CRM export", approvers: ["crm-owners"] },
});

export const members = segment.members;
