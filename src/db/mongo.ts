import mongoose, { type Connection, type Model, type Schema } from 'mongoose';

/**
 * Every schema is declared once with `defineModel` and bound per connection, so each test file can use
 * its own database and no module keeps a connection of its own.
 */
const schemas = new Map<string, Schema>();

export function defineModel<T>(name: string, schema: Schema<T>): (db: Connection) => Model<T> {
  schemas.set(name, schema as Schema);
  return (db) => (db.models[name] as Model<T> | undefined) ?? db.model<T>(name, schema);
}

/** How long one operation waits for an unreachable engine before it fails. */
export const DATABASE_WAIT_MS = 2_500;

const UNAVAILABLE = /^Mongo(?:ose)?(?:ServerSelection|Network|NetworkTimeout|NotConnected|TopologyClosed|PoolCleared)Error$/;

/** True for the errors an unreachable engine causes (as opposed to a bad query or a conflict). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return typeof name === 'string' && UNAVAILABLE.test(name);
}

export async function connectMongo(uri: string, dbName: string): Promise<Connection> {
  const connection = mongoose.createConnection(uri, {
    dbName,
    autoIndex: false,
    autoCreate: false,
    // A request fails fast (and answers 503) while the engine is unreachable; the driver keeps
    // reconnecting in the background, so the node recovers alone when it is back.
    serverSelectionTimeoutMS: DATABASE_WAIT_MS,
    bufferCommands: false,
    // Command events cost nothing without listeners; tests count them to prove cache hits skip the engine.
    monitorCommands: true,
  });
  await connection.asPromise();
  return connection;
}

/** Creates every declared index before the node serves; rules such as "no double booking" rely on them. */
export async function ensureIndexes(db: Connection): Promise<void> {
  for (const [name, schema] of schemas) {
    const model = (db.models[name] as Model<unknown> | undefined) ?? db.model(name, schema);
    await model.createCollection().catch((error: { codeName?: string }) => {
      if (error.codeName !== 'NamespaceExists') throw error;
    });
    await model.createIndexes();
  }
}

export async function pingMongo(db: Connection): Promise<boolean> {
  try {
    await db.db!.admin().ping();
    return true;
  } catch {
    return false;
  }
}

/**
 * True for an engine that is up but cannot take the command now: FerretDB on SQLite answers `SQLITE_BUSY`
 * ("database is locked") when writers queue longer than its busy timeout. Retried after a moment it goes
 * through, so it is a 503 with `Retry-After`, not a fault.
 */
export function isEngineBusy(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /SQLITE_BUSY|database is locked/i.test(message);
}

/** True for a unique-index violation (duplicate key, code 11000). */
export function isDuplicateKeyError(error: unknown): boolean {
  return (error as { code?: number } | null)?.code === 11000;
}

/** A bulk insert reports a unique-index violation either on itself or on one of its write errors. */
export function isDuplicateInsert(error: unknown): boolean {
  const writeErrors = (error as { writeErrors?: { code?: number; err?: { code?: number } }[] }).writeErrors;
  return isDuplicateKeyError(error) || !!writeErrors?.some((e) => (e.code ?? e.err?.code) === 11000);
}

/** Runs a write whose only expected failure is a unique-index violation, answered as null. */
export async function nullOnDuplicate<T>(write: () => Promise<T>): Promise<T | null> {
  try {
    return await write();
  } catch (error) {
    if (isDuplicateKeyError(error)) return null;
    throw error;
  }
}

/**
 * Upgrades documents written before `field` was stored as an ObjectId (it was a hex string): each is
 * rewritten in place, a few at a time, so lists and tenant filters find them again. Runs at start;
 * once nothing is left it costs one query.
 */
export async function convertHexStringsToObjectIds(db: Connection, collection: string, field: string): Promise<number> {
  const documents = db.collection(collection);
  let converted = 0;
  for (;;) {
    const batch = await documents.find({ [field]: { $type: 'string' } }, { projection: { [field]: 1 } }).limit(25).toArray();
    const convertible = batch.filter((doc) => /^[0-9a-f]{24}$/i.test(String(doc[field])));
    if (convertible.length === 0) return converted;
    for (const doc of convertible) {
      await documents.updateOne({ _id: doc._id }, { $set: { [field]: new mongoose.Types.ObjectId(String(doc[field])) } });
      converted += 1;
    }
  }
}
