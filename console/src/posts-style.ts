/** The posts list's and the editor's styles (appended to style.ts's sheet); same colours and targets. */
export const POSTS_CSS = `
a.button{display:inline-block;padding:6px 12px;border:1px solid #1f4fd1;border-radius:6px;background:#1f4fd1;color:#fff;text-decoration:none}
.head a.button{margin-left:auto}
.pager{display:flex;gap:8px;align-items:center;margin-top:8px;flex-wrap:wrap}
.editor .head{margin-bottom:8px}
.editor-grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px;align-items:start}
.stack.wide{max-width:none}
.editor textarea{width:100%;font-family:ui-monospace,Menlo,Consolas,monospace}
.editor input[type=text]{width:100%}
.preview{border:1px solid #e3e0d8;border-radius:6px;padding:8px;overflow-wrap:anywhere;min-width:0;position:sticky;top:8px;max-height:calc(100vh - 16px);overflow-y:auto}
.rendered img{max-width:100%}
.sidebar{display:flex;flex-direction:column;gap:12px;margin-top:12px}
.sidebar section{border-top:1px solid #e3e0d8;padding-top:8px}
.actions{display:flex;flex-wrap:wrap;gap:6px}
.plain{list-style:none;margin:8px 0;padding:0;display:flex;flex-direction:column;gap:6px}
.add-translation{margin:4px 6px 0 0}
.post-image{margin:0}.post-image img{max-width:160px;height:auto;border-radius:4px;display:block}
.media-grid{flex-direction:row;flex-wrap:wrap}
.media-choice{display:flex;flex-direction:column;align-items:center;gap:4px;max-width:120px;overflow-wrap:anywhere}
.media-choice img{width:80px;height:auto}
.media-grid li{display:flex;flex-direction:column;gap:4px;max-width:140px}
.media-choice[aria-pressed=true]{outline:3px solid #1f4fd1;outline-offset:2px}
.conflict{border:2px solid #9b1c1c;border-radius:8px;padding:8px;margin:8px 0}
.conflict .sides{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:8px;margin-bottom:8px}
.conflict .sides h4{grid-column:1/-1;margin:4px 0}
.conflict pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f1ec;padding:6px;border-radius:6px;margin:0;max-height:30vh;overflow:auto}
.conflict .muted{margin:0 0 4px}
@media (max-width:900px){.editor-grid,.conflict .sides{grid-template-columns:1fr}.preview{position:static;max-height:none}}
@media (max-width:700px){a.button{min-height:44px;padding:10px 12px}}
`;
