import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { roleSchema } from './workspaces.schemas.js';

export const memberSchema = z
  .object({
    userId: z.string(),
    email: z.string(),
    name: z.string(),
    role: roleSchema,
    joinedAt: z.string().describe('When the membership began, ISO 8601 UTC.'),
  })
  .meta({ id: 'Member' });

export const memberListSchema = z.object({ items: z.array(memberSchema) });

export const memberParams = z.object({ wid: z.string(), uid: z.string() });

export const patchMemberBody = z.object({ role: roleSchema });

export const invitationSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: roleSchema,
    invitedBy: z.object({ id: z.string(), name: z.string() }).describe('The team member who sent it.'),
    expiresAt: z.string().describe('72 hours after it was sent, ISO 8601 UTC.'),
    createdAt: z.string(),
  })
  .meta({ id: 'Invitation' });

export const invitationListSchema = z.object({ items: z.array(invitationSchema) });

export const inviteBody = z.object({ email: z.email().max(320), role: roleSchema });

export const invitationParams = z.object({ wid: z.string(), iid: z.string() });

const invitationToken = inputText().min(1).max(200).describe('The token of the mailed link (after `#/invitation/`).');

export const invitationTokenBody = z.object({ token: invitationToken });

export const invitationInfoSchema = z.object({
  email: z.string(),
  role: roleSchema,
  workspace: z.object({ id: z.string(), name: z.string() }),
  accountExists: z.boolean().describe('True when a user has this e-mail: accepting then asks for that account\'s password, not a name and a new one.'),
});

export const acceptInvitationBody = z.object({
  token: invitationToken,
  name: inputText().trim().min(1).max(120).optional().describe('Required when no account has the invited e-mail.'),
  password: inputText()
    .min(8, 'must be at least 8 characters')
    .max(1000)
    .optional()
    .describe('Required. A new account: its password. An existing account: that account\'s current password.'),
});
