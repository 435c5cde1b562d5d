/**
 * Users and groups of the account (spec admin §2-4, §7-8; ref admin §5): invitations, the status
 * a user may move to, unique e-mails and group names.
 * @module
 */
import { randomUUID } from "node:crypto";
import { badRequest, conflict, notFound } from "../errors";
import type { GroupRecord, UserRecord } from "./records";
import { Table } from "./table";

/** The spec's message for deleting an ACTIVE user (spec admin §7; wording from ref admin §4). */
export const ACTIVE_USER_DELETE_MESSAGE =
  "Active users cannot be deleted from your org. You can use a PUT request to deactivate the user";

/** The groups of the account; names are unique (the name acts as primary key, ref admin §5). */
export class Groups extends Table<GroupRecord> {
  constructor() {
    super((g) => g.id);
  }

  /** Adds a group; 409 when the name is taken (inferred). */
  create(fields: Omit<GroupRecord, "id">): GroupRecord {
    this.assertFree(fields.name);
    return this.put({ id: randomUUID(), ...fields });
  }

  /** Replaces a group's name and description; 409 when another group has the name. */
  update(g: GroupRecord, next: Omit<GroupRecord, "id">): void {
    this.assertFree(next.name, g.id);
    g.name = next.name;
    g.description = next.description;
  }

  /** Removes a group (see `Store.deleteGroup` for its members). */
  remove(g: GroupRecord): void {
    this.drop(g.id);
  }

  /** The ids of a groups array, each checked to exist (400 naming the entry); duplicates dropped. */
  idsOf(refs: readonly { id: string }[]): string[] {
    refs.forEach((g, i) => {
      if (!this.get(g.id)) throw badRequest(`groups[${i}].id: group ${g.id} does not exist`);
    });
    return [...new Set(refs.map((g) => g.id))];
  }

  private assertFree(name: string, except?: string): void {
    if (this.find((g) => g.id !== except && g.name === name))
      throw conflict(`Group with name ${name} already exists`);
  }
}

/** The users of the account. */
export class Users extends Table<UserRecord> {
  constructor(private readonly groups: Groups) {
    super((u) => u.id);
  }

  /**
   * Invites a user: PENDING, `name` the local part of the e-mail, `2fa` false (spec admin §3);
   * 409 when the e-mail is taken (inferred), then 400 for an unknown group. `scope` is the
   * workspace scope of the inviting key (see `middleware/auth.ts`).
   */
  invite(body: { email: string; groups: readonly { id: string }[] }, scope: string[]): UserRecord {
    this.assertFree(body.email);
    return this.put({
      id: randomUUID(),
      name: body.email.slice(0, body.email.indexOf("@")),
      email: body.email,
      status: "PENDING",
      twoFactor: false,
      groups: this.groups.idsOf(body.groups),
      scope,
      creationTime: Date.now(),
    });
  }

  /**
   * Replaces a user's e-mail, name, status and 2FA (spec admin §4 PUT). 2FA cannot be enabled
   * through the API (ref admin §5); a PENDING user becomes ACTIVE only by accepting; ACTIVE ⇄
   * DEACTIVATED (reactivation inferred); 409 when another user has the e-mail.
   */
  update(u: UserRecord, next: Pick<UserRecord, "email" | "name" | "status" | "twoFactor">): void {
    if (next.twoFactor && !u.twoFactor)
      throw badRequest("2fa: two-factor authentication cannot be enabled through the API");
    if (next.status !== u.status) {
      if (u.status === "PENDING") {
        throw badRequest(
          `status: a PENDING user becomes ACTIVE only by accepting the invitation; delete the invitation instead`,
        );
      }
      if (next.status === "PENDING") throw badRequest("status: a user cannot be set back to PENDING");
    }
    this.assertFree(next.email, u.id);
    u.email = next.email;
    u.name = next.name;
    u.status = next.status;
    u.twoFactor = next.twoFactor;
  }

  /** Sets a user's groups (400 for an unknown one). */
  setGroups(u: UserRecord, refs: readonly { id: string }[]): void {
    u.groups = this.groups.idsOf(refs);
  }

  /** The group leaves every user. */
  leaveGroup(groupId: string): void {
    for (const u of this.list()) {
      if (u.groups.includes(groupId)) u.groups = u.groups.filter((id) => id !== groupId);
    }
  }

  /** Makes a PENDING user ACTIVE (the invited person completed registration, spec admin §3). */
  accept(id: string): UserRecord {
    const u = this.get(id);
    if (!u) throw notFound(`Could not find user ${id}`);
    if (u.status !== "PENDING")
      throw badRequest(`User ${id} is ${u.status}; only a PENDING invitation can be accepted`);
    u.status = "ACTIVE";
    return u;
  }

  /**
   * Deletes a PENDING invitation. ACTIVE users get the spec's 400; DEACTIVATED ones a 400 too
   * (ref admin §9.1: only pending users are deleted; inferred).
   */
  remove(u: UserRecord): void {
    if (u.status === "ACTIVE") throw badRequest(ACTIVE_USER_DELETE_MESSAGE);
    if (u.status === "DEACTIVATED")
      throw badRequest(
        "Deactivated users cannot be deleted from your org; only pending invitations can be deleted",
      );
    this.drop(u.id);
  }

  private assertFree(email: string, except?: string): void {
    if (this.find((u) => u.id !== except && u.email.toLowerCase() === email.toLowerCase()))
      throw conflict(`User with email ${email} already exists`);
  }
}
