import { z } from 'zod';
import { inputText } from '../shared/text.js';

/** The visitor identity object of the spec (live chat start and appointment requests). */
export const visitorIdentitySchema = z
  .object({
    externalId: inputText().min(1).max(128),
    name: inputText().max(120).optional(),
    email: inputText().max(200).optional(),
    attributes: z
      .record(inputText().max(40, 'attribute keys are at most 40 characters'), inputText().max(100, 'attribute values are at most 100 characters'))
      .refine((attributes) => Object.keys(attributes).length <= 10, 'at most 10 attributes')
      .optional(),
    identityToken: inputText().max(200).optional(),
  })
  .meta({ id: 'VisitorIdentity' });

export type VisitorIdentity = z.infer<typeof visitorIdentitySchema>;

/** A visitor identity that verified (`checkVisitorIdentity`): its fields as given, absent ones null. */
export interface VerifiedVisitor {
  externalId: string;
  name: string | null;
  email: string | null;
  attributes: Record<string, string> | null;
}

/** What an identity that breaks the schema is read as: an empty `externalId`, which never verifies. */
const UNREADABLE_IDENTITY: VisitorIdentity = Object.freeze({ externalId: '' });

/**
 * The `visitor` field of a request body (chat start, appointment request): documented as the identity
 * object, but never a 400. One that breaks the schema (malformed, over its bounds) is read as
 * `UNREADABLE_IDENTITY`, so the request goes on anonymously and the service logs why.
 */
export const visitorIdentityField = visitorIdentitySchema.nullable().optional().catch(UNREADABLE_IDENTITY);
