import { z } from 'zod';

export const userSchema = z
  .object({ id: z.string(), email: z.string(), name: z.string(), isOperator: z.boolean() })
  .meta({ id: 'User' });

export const loginBody = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1000) });

export const createUserBody = z.object({
  email: z.email().max(320),
  name: z.string().trim().min(1).max(120),
  password: z.string().min(8, 'must be at least 8 characters').max(1000),
});
