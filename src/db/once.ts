import { Schema, type Connection } from 'mongoose';
import { defineModel, nullOnDuplicate } from './mongo.js';

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
