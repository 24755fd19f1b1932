import { z } from 'zod';
import { inputText } from '../shared/text.js';

export const userSchema = z
  .object({ id: z.string(), email: z.string(), name: z.string(), isOperator: z.boolean() })
  .meta({ id: 'User' });

export const loginBody = z.object({ email: inputText().min(1).max(320), password: inputText().min(1).max(1000) });

export const createUserBody = z.object({
  email: z.email().max(320),
  name: inputText().trim().min(1).max(120),
  password: inputText().min(8, 'must be at least 8 characters').max(1000),
});

/** What a login answers (and accepting an invitation): a session token for `Authorization: Bearer`, and its user. */
export const sessionSchema = z.object({ token: z.string(), user: userSchema }).meta({ id: 'Session' });

/** A new password: 8 to 1000 characters. */
export const newPasswordSchema = inputText().min(8, 'must be at least 8 characters').max(1000);

/** A one-time token from a mailed link (invitation, password reset). */
export const linkTokenSchema = inputText().min(1).max(200);

export const changePasswordBody = z.object({ currentPassword: inputText().min(1).max(1000), newPassword: newPasswordSchema });

export const passwordResetBody = z.object({ email: z.email().max(320) });

export const completePasswordResetBody = z.object({ token: linkTokenSchema, password: newPasswordSchema });
