/**
 * A team's access to the feature-flag service: two groups and the people in them, invited by
 * e-mail. Membership is a set per user; adding or removing a group is one PATCH of the user.
 *
 * An invitation stays PENDING until the person registers (`pulumi refresh` then sees ACTIVE).
 * Deleting the resource deletes a PENDING invitation; for an ACTIVE user, `onDelete` decides:
 * `deactivate` (the default), `retain`, or `fail`.
 */
import { Group, UserInvite } from "flagstack/provider";

const developers = new Group("developers", {
  name: "checkout-developers",
  description: "Edit the checkout team's flags in Staging",
});
const releaseManagers = new Group("release-managers", {
  name: "checkout-release-managers",
  description: "Ramp and kill checkout flags in Production",
});

/** Who is on the team, and in which groups. */
const team: { email: string; groups: Group[]; onDelete?: "deactivate" | "retain" | "fail" }[] = [
  { email: "dana@example.com", groups: [developers] },
  { email: "eli@example.com", groups: [developers] },
  // The lead is in both groups and must never be removed by accident: a delete of the resource
  // fails instead of deactivating the account.
  { email: "fran@example.com", groups: [developers, releaseManagers], onDelete: "fail" },
];

const members = team.map(
  (m) =>
    new UserInvite(m.email.split("@")[0] ?? m.email, {
      email: m.email,
      groups: m.groups.map((g) => g.name),
      ...(m.onDelete ? { onDelete: m.onDelete } : {}),
    }),
);

export const groups = [developers.name, releaseManagers.name];
export const invitations = members.map((m) => ({ email: m.email, status: m.status }));
