import { POSTS_CSS } from './posts-style.js';

/** Colours meet WCAG AA (4.5:1) on their backgrounds; targets are at least 44 px on touch screens. */
export const CSS = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#f7f5f0;font-size:16px}
main{max-width:1200px;margin:0 auto;padding:16px}
h1{margin:0 0 12px;font-size:1.5rem}h2{margin:0 0 8px;font-size:1.2rem}h3{margin:0 0 8px;font-size:1rem}
button,input,select,textarea{font:inherit;min-height:36px}
button{padding:6px 12px;border:1px solid #1f4fd1;border-radius:6px;background:#fff;color:#1f4fd1;cursor:pointer}
button[type=submit]{background:#1f4fd1;color:#fff}
:focus-visible{outline:3px solid #1f4fd1;outline-offset:2px}
.box{background:#fff;border-radius:8px;padding:12px;box-shadow:0 1px 3px rgba(0,0,0,.12);min-width:0}
.muted{color:#545b66}
.error p{color:#9b1c1c;background:#fdecec;padding:8px;border-radius:6px;margin:0 0 12px}
#login p{display:flex;flex-direction:column;gap:4px;max-width:320px}
.toolbar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-bottom:12px}
.cols{display:grid;grid-template-columns:320px minmax(0,1fr);gap:12px;align-items:start}
.filters{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-bottom:8px}
.filters input{flex:1;min-width:0}
#conversations{list-style:none;margin:0;padding:0;max-height:70vh;overflow-y:auto}
#conversations button{display:block;width:100%;text-align:left;border:0;border-radius:6px;padding:10px 8px;color:#1d2330;background:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#conversations button[aria-current=true]{background:#e5ecfb}
#conversations button[data-status=CLOSED]{color:#545b66}
#conversations .who{font-weight:600}#conversations .badge{color:#1f4fd1;font-weight:700}#conversations .last{color:#545b66}
.head{display:flex;gap:8px;align-items:center}.head h2{margin:0;overflow-wrap:anywhere}
.back{display:none}
.split{display:grid;grid-template-columns:minmax(0,1fr) 240px;gap:12px;margin-top:8px}
.log{height:55vh;overflow-y:auto;border:1px solid #e3e0d8;border-radius:6px;padding:8px}
#messages{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:6px}
#messages li{max-width:80%;padding:6px 10px;border-radius:10px;white-space:pre-wrap;overflow-wrap:anywhere}
#messages li.AGENT{align-self:flex-end;background:#1f4fd1;color:#fff}#messages .file{display:block;color:inherit}#messages .file img{display:block;max-width:100%;max-height:240px;height:auto;width:auto;border-radius:6px;margin-top:4px}#messages li.VISITOR{align-self:flex-start;background:#eceff5}
.row{display:flex;gap:8px;margin-top:8px;align-items:flex-end}.row label{position:absolute;left:-9999px}
.row textarea{flex:1;min-width:0}
.close{margin-top:8px}.close form{display:flex;flex-direction:column;gap:6px;margin-top:6px}
.visitor dl{margin:0;display:grid;grid-template-columns:auto minmax(0,1fr);gap:4px 8px}
.visitor dt{color:#545b66}.visitor dd{margin:0;overflow-wrap:anywhere}
#messages li[data-seen]::after{content:attr(data-seen);display:block;font-size:.8rem;text-align:right}#typing{min-height:1.4em;margin:4px 0}
.sections ul{list-style:none;margin:0 0 12px;padding:0;display:flex;flex-wrap:wrap;gap:6px}
.sections a{display:inline-block;padding:8px 12px;border-radius:6px;color:#1f4fd1;background:#fff;text-decoration:none;border:1px solid #1f4fd1}
.sections a[aria-current=page]{background:#1f4fd1;color:#fff}
.entries{list-style:none;margin:0;padding:0;max-height:70vh;overflow-y:auto}
.entries a{display:block;padding:10px 8px;border-radius:6px;color:#1d2330;text-decoration:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.entries a[aria-current=true]{background:#e5ecfb}.entries a[data-handled=true],.entries a[data-waiting=false]{color:#545b66}
.entries .kind{font-size:.85em;text-transform:uppercase;letter-spacing:.04em}
.entries .who{font-weight:600}.entries .last{color:#545b66}
.facts{margin:8px 0;display:grid;grid-template-columns:auto minmax(0,1fr);gap:4px 8px}.facts dt{color:#545b66}.facts dd{margin:0;overflow-wrap:anywhere}
.message{white-space:pre-wrap;overflow-wrap:anywhere}
.metadata{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f1ec;padding:8px;border-radius:6px}
.answers{list-style:none;margin:0 0 12px;padding:0;display:flex;flex-direction:column;gap:8px}.answers li{display:flex;flex-direction:column;border-left:3px solid #1f4fd1;padding-left:8px}
.stack{display:flex;flex-direction:column;gap:6px;margin-top:8px;max-width:560px}
.field-error{color:#9b1c1c;margin:0}
button.danger{background:#9b1c1c;border-color:#9b1c1c;color:#fff}
.people{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.people li{display:flex;flex-wrap:wrap;gap:6px 10px;align-items:center;padding:8px 0;border-bottom:1px solid #e3e0d8}
.people .who{font-weight:600}.people .muted{overflow-wrap:anywhere}.confirm{display:flex;flex-wrap:wrap;gap:6px;align-items:center}.confirm p{overflow-wrap:anywhere;min-width:0}
.person{margin-top:16px;border-top:1px solid #e3e0d8;padding-top:8px}.person h4{margin:8px 0 4px;font-size:.95rem}
.field{display:flex;flex-direction:column;gap:4px;margin:0}.narrow{max-width:480px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
h2[tabindex]:focus{outline:none}h2[tabindex]:focus-visible{outline:3px solid #1f4fd1}
.verified{background:#0b6b3a;color:#fff;border-radius:4px;padding:0 6px;font-size:.85rem}
@media (max-width:900px){.split{grid-template-columns:1fr}}
@media (max-width:700px){
  main{padding:8px}
  .cols{grid-template-columns:1fr}
  .has-selection .inbox,.has-selection .placeholder{display:none}
  .sections a{min-height:44px;padding:10px 12px}
  .back{display:inline-block}
  .log{height:45vh}
  button,input,select,textarea{min-height:44px}
}
${POSTS_CSS}`;
