/** Menus and categories' styles, added to the page when their chunk loads (same colours and targets as style.ts). */
export const STRUCTURE_CSS = `
.structure{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px;align-items:start}
.tree,.tree ol{list-style:none;margin:0;padding:0}
.tree ol{padding-left:14px;margin-left:6px;border-left:2px solid #e3e0d8}
.tree li{padding:4px 0}
.nav-row{display:flex;flex-wrap:wrap;gap:6px;align-items:center;justify-content:space-between}
.nav-what{min-width:0;overflow-wrap:anywhere}
button.icon{min-width:44px;padding:6px}
button.primary{background:#1f4fd1;color:#fff}
.tree details{margin:2px 0 4px}.tree summary{cursor:pointer;padding:6px 0;color:#1f4fd1}
.locale-row{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:flex-end}
.check{display:inline-flex;gap:6px;align-items:center;min-height:36px}
.navigation-editor .stack{max-width:560px}
.post-select{display:flex;flex-direction:column;gap:4px}
.post-search{display:flex;gap:6px}.post-search input{flex:1;min-width:0}
@media (max-width:900px){.structure{grid-template-columns:1fr}}
@media (max-width:700px){.check{min-height:44px}}
`;

let added = false;
export function addStructureStyle(): void {
  if (added) return;
  added = true;
  const style = document.createElement('style');
  style.textContent = STRUCTURE_CSS;
  document.head.append(style);
}
