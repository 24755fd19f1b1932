import type { Model, UpdateQuery } from 'mongoose';
import { documentWrites } from './document-locks.js';
import { tenantScope, type TenantDoc } from './tenant-store.js';

/** The stored fields of a workspace document, without its keys. */
export type WorkspaceDocFields<D extends TenantDoc> = Partial<Omit<D, '_id' | 'workspaceId'>>;

/**
 * A collection holding at most one document per workspace (the plugin settings of live chat and
 * appointments, the explicit identity secret). Its schema declares a unique index on `workspaceId`, so
 * the upsert of the first save creates the document exactly once whichever node saves, and later saves
 * only replace fields.
 */
export function workspaceDocument<D extends TenantDoc>(model: Model<D>) {
  const scope = tenantScope(model);
  // The one document of a workspace is locked by the workspace id: its filter never names the `_id`.
  const { write: guarded } = documentWrites(model);
  return {
    get(workspaceId: string): Promise<D | null> {
      return scope.findOne(workspaceId, {});
    },

    /** Sets the fields, creating the document on the workspace's first save; the document as saved. */
    async set(workspaceId: string, fields: WorkspaceDocFields<D>): Promise<D> {
      const saved = await guarded(workspaceId, () =>
        model.findOneAndUpdate(scope.filter(workspaceId), { $set: fields } as UpdateQuery<D>, { upsert: true, returnDocument: 'after' }).lean<D>(),
      );
      return saved;
    },

    /** Sets one field only while it is still null: a first-time stamp that later saves never move. */
    async setIfNull<K extends keyof WorkspaceDocFields<D> & string>(workspaceId: string, field: K, value: D[K]): Promise<void> {
      await guarded(workspaceId, () => model.updateOne(scope.filter(workspaceId, { [field]: null }), { $set: { [field]: value } } as UpdateQuery<D>));
    },

    async remove(workspaceId: string): Promise<void> {
      await guarded(workspaceId, () => model.deleteOne(scope.filter(workspaceId)));
    },
  };
}
