import { Types } from 'mongoose';

/** True for a 24-digit hex string: the only form of id that can name a stored document. */
export function isObjectIdHex(value: string): boolean {
  return /^[0-9a-f]{24}$/i.test(value);
}

/** Ids in URLs are ObjectId hex strings; anything else cannot name a stored document. */
export function parseObjectId(value: string): Types.ObjectId | null {
  return isObjectIdHex(value) ? new Types.ObjectId(value) : null;
}
