import { Types, type Model, type QueryFilter, type UpdateQuery } from 'mongoose';
import { isObjectIdHex } from '../shared/ids.js';
import { documentWrites } from './document-locks.js';
import { offsetOf, type PageRequest } from '../shared/paging.js';
import { sequenceStore, walkNewestFirst } from './newest-first.js';
import { engineTraits, readByIds } from './engine-traits.js';

/** A stored document of one workspace. */
export interface TenantDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
}

type Sort = Record<string, 1 | -1>;

/** Compares two documents as the engine orders them by `sort` (dates, numbers, strings and ids; a missing value first). */
export function inOrderOf(sort: Sort): (a: object, b: object) => number {
  const comparable = (value: unknown): number | string | null =>
    value instanceof Date ? value.getTime() : value instanceof Types.ObjectId ? value.toHexString() : value === undefined ? null : (value as number | string | null);
  return (a, b) => {
    for (const [field, direction] of Object.entries(sort)) {
      const x = comparable((a as Record<string, unknown>)[field]);
      const y = comparable((b as Record<string, unknown>)[field]);
      if (x === y) continue;
      return (x === null ? -1 : y === null ? 1 : x < y ? -1 : 1) * direction;
    }
    return 0;
  };
}

/**
 * The one way model files query tenant data: every filter is built here with the workspace id first,
 * so a query that forgets the tenant cannot be written. Point reads go by `_id` alone (FerretDB 1.x
 * scans on any other filter; MongoDB answers both from an index) and the tenant is checked in code.
 * Not found is always `null`.
 */
export function tenantScope<D extends TenantDoc>(model: Model<D>) {
  const scoped = (workspaceId: string, filter: QueryFilter<D> = {}): QueryFilter<D> =>
    ({ ...filter, workspaceId: new Types.ObjectId(workspaceId) });
  const guarded = documentWrites(model);
  const owns = (workspaceId: string, doc: D | null): D | null => (doc && doc.workspaceId.toHexString() === workspaceId ? doc : null);
  const sequences = sequenceStore(model.db);
  /**
   * Whether a write by id may filter by `_id` alone: on an engine that hands its storage nothing but `{_id}`
   * (FerretDB on SQLite) a write filtered by the workspace too decodes the whole collection, so there the
   * tenant is checked by a read by `_id` first (a document never changes workspace). A document of another
   * workspace, or none, leaves the write filtered by both, which finds nothing.
   */
  const byIdOnly = async (workspaceId: string, id: string): Promise<boolean> =>
    !engineTraits(model.db).equalityPushdown && owns(workspaceId, await model.findById(id, { workspaceId: 1 }).lean<D>()) !== null;

  async function byId(workspaceId: string, id: string): Promise<D | null> {
    if (!isObjectIdHex(id) || !isObjectIdHex(workspaceId)) return null;
    return owns(workspaceId, await model.findById(id).lean<D>());
  }

  /** One page and the total in parallel (without `withTotal: false`, see `PageRequest`). */
  async function page(workspaceId: string, filter: QueryFilter<D>, sort: Sort, request: PageRequest): Promise<{ docs: D[]; total: number }> {
    const where = scoped(workspaceId, filter);
    const read = (limit: number) => model.find(where).sort(sort).skip(offsetOf(request)).limit(limit).lean<D[]>();
    if (request.withTotal === false) {
      const docs = await read(request.limit + 1);
      return { docs: docs.slice(0, request.limit), total: offsetOf(request) + docs.length };
    }
    const [docs, total] = await Promise.all([read(request.limit), model.countDocuments(where)]);
    return { docs, total };
  }

  return {
    filter: scoped,
    /** Runs `work` as the only writer of the document with this id (see `document-locks.ts`). */
    transition: guarded.transition,
    /** One write of the document with this id, guarded where the engine needs it (see `document-locks.ts`). */
    write: guarded.write,

    byId,

    /** The workspace's documents among `ids` (malformed and unknown ids left out), as the engine reads a page of ids fastest. */
    byIds(workspaceId: string, ids: readonly string[]): Promise<D[]> {
      return readByIds(
        model.db,
        ids.filter(isObjectIdHex),
        (id) => byId(workspaceId, id),
        (unique) => model.find(scoped(workspaceId, { _id: { $in: unique.map((id) => new Types.ObjectId(id)) } })).lean<D[]>(),
      );
    },

    async findOne(workspaceId: string, filter: QueryFilter<D>, sort?: Sort): Promise<D | null> {
      const query = model.findOne(scoped(workspaceId, filter));
      return (sort ? query.sort(sort) : query).lean<D>();
    },

    async find(workspaceId: string, filter: QueryFilter<D> = {}, options: { sort?: Sort; limit?: number } = {}): Promise<D[]> {
      let query = model.find(scoped(workspaceId, filter));
      if (options.sort) query = query.sort(options.sort);
      if (options.limit !== undefined) query = query.limit(options.limit);
      return query.lean<D[]>();
    },

    /**
     * The first `limit` documents in `sort` order that match any of `branches` (each an equality filter): one
     * query per branch, at once, where the engine hands equalities to its storage (FerretDB hands it no `$or`,
     * and decoded every document of the workspace for one); else (FerretDB on SQLite, which decodes the
     * collection for any of them) one `$or` query.
     */
    async findAny(workspaceId: string, branches: QueryFilter<D>[], options: { sort: Sort; limit: number }): Promise<D[]> {
      if (branches.length === 0) return [];
      const read = (filter: QueryFilter<D>) => model.find(scoped(workspaceId, filter)).sort(options.sort).limit(options.limit).lean<D[]>();
      if (branches.length === 1 || !engineTraits(model.db).equalityPushdown) return read(branches.length === 1 ? branches[0] : { $or: branches });
      const unique = new Map<string, D>();
      for (const docs of await Promise.all(branches.map(read))) for (const doc of docs) unique.set(doc._id.toHexString(), doc);
      return [...unique.values()].sort(inOrderOf(options.sort)).slice(0, options.limit);
    },

    page,

    /**
     * A page of a newest-first list kept in buckets (see `newest-first.ts`): `list.field` holds a document's
     * bucket, `list.sequence` names the sequence its numbers come from, `list.sort` is the order within a
     * bucket. Read bucket by bucket from the newest while that finds the page; otherwise (a deep page, a
     * selective filter) with one query in the same order.
     */
    async newestPage(
      workspaceId: string,
      filter: QueryFilter<D>,
      list: { field: string; sequence: string; sort: Sort },
      request: PageRequest,
    ): Promise<{ docs: D[]; total: number }> {
      const offset = offsetOf(request);
      const counted = request.withTotal === false ? null : model.countDocuments(scoped(workspaceId, filter)).exec();
      const walked = await walkNewestFirst({
        top: await sequences.topBucket(list.sequence),
        wanted: offset + request.limit + 1,
        read: (bucket) => model.find(scoped(workspaceId, { ...filter, [list.field]: bucket })).sort(list.sort).lean<D[]>(),
      });
      if (walked === null) {
        const [found] = await Promise.all([page(workspaceId, filter, { [list.field]: -1, ...list.sort }, { ...request, withTotal: false }), counted]);
        return { docs: found.docs, total: counted ? await counted : found.total };
      }
      const docs = walked.slice(offset, offset + request.limit);
      return { docs, total: counted ? await counted : walked.length };
    },

    count(workspaceId: string, filter: QueryFilter<D> = {}): Promise<number> {
      return model.countDocuments(scoped(workspaceId, filter));
    },

    /** Updates the workspace's document with this id (a guarded write); null when there is none. */
    async updateById(workspaceId: string, id: string, update: UpdateQuery<D>, condition: QueryFilter<D> = {}): Promise<D | null> {
      if (!isObjectIdHex(id)) return null;
      return guarded.write(id, async () => {
        if (Object.keys(condition).length === 0 && (await byIdOnly(workspaceId, id))) {
          return model.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after' }).lean<D>();
        }
        return model.findOneAndUpdate(scoped(workspaceId, { ...condition, _id: id }), update, { returnDocument: 'after' }).lean<D>();
      });
    },

    /**
     * `updateById` of a document the caller has read as the workspace's within the same transition (a document
     * never changes workspace): the tenant was checked on that read, so where the engine hands its storage only
     * `{_id}` the write goes by `_id` alone without the read `updateById` makes first (elsewhere the workspace
     * stays in the filter, which costs nothing there).
     */
    async updateOwnedById(workspaceId: string, owned: { id: string; workspaceId: string }, update: UpdateQuery<D>): Promise<D | null> {
      if (owned.workspaceId !== workspaceId || !isObjectIdHex(owned.id)) return null;
      const filter = engineTraits(model.db).equalityPushdown ? scoped(workspaceId, { _id: owned.id }) : { _id: owned.id };
      return guarded.write(owned.id, () => model.findOneAndUpdate(filter, update, { returnDocument: 'after' }).lean<D>());
    },

    /** True when the workspace had a document with this id. */
    async deleteById(workspaceId: string, id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      const result = await guarded.write(id, async () =>
        (await byIdOnly(workspaceId, id)) ? model.deleteOne({ _id: id }) : model.deleteOne(scoped(workspaceId, { _id: id })),
      );
      return result.deletedCount === 1;
    },
  };
}

export type TenantScope<D extends TenantDoc> = ReturnType<typeof tenantScope<D>>;
