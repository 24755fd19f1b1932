import { Types } from 'mongoose';

/** Ids in URLs are ObjectId hex strings; anything else cannot name a stored document. */
export function parseObjectId(value: string): Types.ObjectId | null {
  return /^[0-9a-f]{24}$/i.test(value) ? new Types.ObjectId(value) : null;
}
