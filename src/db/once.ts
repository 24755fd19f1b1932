import { Schema, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError, nullOnDuplicate } from './mongo.js';

interface OnceClaimDoc {
  _id: string;
  at: Date;
}

const OnceClaims = defineModel('OnceClaim', new Schema<OnceClaimDoc>({ _id: { type: String, required: true }, at: { type: Date, required: true } }, { collection: 'once_claims', versionKey: false }));

/**
 * True for the first caller ever to claim `key`, false for every other: the unique `_id` decides. A
 * conditional update ("only while PENDING") is a compare-and-set on MongoDB, but FerretDB runs it as a
 * read and a write that racing callers interleave, so all of them "win"; claiming first makes the race
 * one insert, decided alike on every engine.
 */
export async function claimOnce(db: Connection, key: string): Promise<boolean> {
  return (await nullOnDuplicate(() => OnceClaims(db).create({ _id: key, at: new Date() }))) !== null;
}

/** `claimOnce` of each key, in one insert: every key is claimed afterwards, whoever claimed it first. */
export async function claimAll(db: Connection, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const at = new Date();
  try {
    await OnceClaims(db).insertMany(keys.map((key) => ({ _id: key, at })), { ordered: false });
  } catch (error) {
    const writeErrors = (error as { writeErrors?: { code?: number; err?: { code?: number } }[] }).writeErrors;
    // Keys claimed before are what a racing claimer leaves: anything else is a failed claim.
    if (!(writeErrors?.every((each) => (each.code ?? each.err?.code) === 11000) ?? isDuplicateKeyError(error))) throw error;
  }
}

/** True once anyone claimed `key`. */
export async function wasClaimed(db: Connection, key: string): Promise<boolean> {
  return (await OnceClaims(db).exists({ _id: key })) !== null;
}

/**
 * Runs `upgrade` (it must be idempotent) unless a run of it finished before, on any node: an upgrade of
 * stored data that reads a whole collection costs that once per database, not at every start. Nodes that
 * start together may both run it.
 */
export async function upgradeOnce(db: Connection, name: string, upgrade: () => Promise<void>): Promise<void> {
  const key = `upgrade:${name}`;
  if (await OnceClaims(db).exists({ _id: key })) return;
  await upgrade();
  await claimOnce(db, key);
}
