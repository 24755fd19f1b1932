/** Types of build-widget.mjs for the TypeScript callers (dev server, tests). */
/** One built file: its stable name, its content-hashed name and the sizes of its three variants. */
export type BuiltAsset = { name: string; file: string; bytes: number; gzipped: number; brotli: number };
type BuildResult = BuiltAsset & { outfile: string; budget: number; withinBudget: boolean };
/** The manifests (stable name -> hashed name) of the three groups; each exists once its group is built. */
export declare const WIDGET_OUTFILE: string;
export declare const CONSOLE_OUTFILE: string;
export declare const DOCS_OUTFILE: string;
export declare const GZIP_BUDGET_BYTES: number;
export declare const CONSOLE_GZIP_BUDGET_BYTES: number;
export declare function buildWidget(): Promise<BuildResult>;
/** The console's entry (name, file) with the sizes of every file of the app together; `lazy`: the files loaded on demand only. */
export declare function buildConsole(): Promise<BuildResult & { entryGzipped: number; assets: BuiltAsset[]; lazy: string[] }>;
export declare function buildDocs(): Promise<{ outfile: string; assets: BuiltAsset[]; bytes: number; gzipped: number; brotli: number }>;
