/** Types of build-widget.mjs for the TypeScript callers (dev server, tests). */
export declare const WIDGET_OUTFILE: string;
export declare const GZIP_BUDGET_BYTES: number;
export declare function buildWidget(options?: { outfile?: string }): Promise<{ outfile: string; bytes: number; gzipped: number; withinBudget: boolean }>;
