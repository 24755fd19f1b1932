/** Types of build-widget.mjs for the TypeScript callers (dev server, tests). */
export declare const WIDGET_OUTFILE: string;
export declare const GZIP_BUDGET_BYTES: number;
type BuildResult = { outfile: string; bytes: number; gzipped: number; budget: number; withinBudget: boolean };
export declare const CONSOLE_OUTFILE: string;
export declare const CONSOLE_GZIP_BUDGET_BYTES: number;
export declare function buildWidget(options?: { outfile?: string }): Promise<BuildResult>;
export declare function buildConsole(options?: { outfile?: string }): Promise<BuildResult>;
