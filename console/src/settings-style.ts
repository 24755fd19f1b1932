/** The settings' styles (added by their chunk when it loads); the colours and targets of style.ts. */
export const SETTINGS_CSS = `
.settings{display:grid;grid-template-columns:200px minmax(0,1fr);gap:12px;align-items:start}
.parts ul{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:4px}
.parts a{display:block;padding:8px 10px;border-radius:6px;color:#1f4fd1;text-decoration:none}
.parts a[aria-current=page]{background:#1f4fd1;color:#fff}
.settings fieldset{border:1px solid #e3e0d8;border-radius:6px;padding:8px;display:flex;flex-direction:column;gap:6px;min-width:0}
.settings legend{font-weight:600;padding:0 4px}
.settings input[type=text],.settings input[type=url],.settings input[type=email],.settings textarea{width:100%}
.settings .help{font-size:.9rem}
.settings .check{display:flex;gap:8px;align-items:center;margin:0}
.settings .pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:6px}
.settings .events{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr))}.settings .events label{display:flex;gap:6px;align-items:center;overflow-wrap:anywhere;min-height:36px}
.settings .actions{margin:6px 0}.settings h3{margin-top:16px}
.settings details{border-top:1px solid #e3e0d8;padding-top:6px}.settings summary{cursor:pointer;min-height:36px;padding:6px 0}
.secret,.url{overflow-wrap:anywhere;word-break:break-all}
code.secret{background:#f3f1ec;padding:2px 6px;border-radius:4px}
.once{border:2px solid #0b6b3a;border-radius:8px;padding:8px;margin:8px 0}
.warning{color:#7a4a00;background:#fff4dc;border-radius:6px;padding:6px 8px}.warning p{margin:0}
.endpoints{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.endpoints>li{border-bottom:1px solid #e3e0d8;padding:8px 0}.endpoints p{margin:0 0 4px}
.deliveries{list-style:none;margin:8px 0 0;padding:0;display:flex;flex-direction:column;gap:8px}
.deliveries>li{border-left:3px solid #1f4fd1;padding-left:8px}.deliveries>li[data-state=failed]{border-color:#9b1c1c}
.attempts{margin:4px 0;padding-left:18px}
.log-panel{margin-top:8px}.log-panel h4{margin:4px 0}
@media (max-width:700px){.settings{grid-template-columns:1fr}.parts ul{flex-direction:row;flex-wrap:wrap}.parts a{min-height:44px;padding:10px 12px}.settings .pair{grid-template-columns:1fr}.settings summary{min-height:44px}}
`;
