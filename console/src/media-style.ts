/** The media library's styles, added to the page when its chunk loads (same colours and targets as style.ts). */
export const MEDIA_CSS = `
.media-library{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
.media-upload{display:flex;flex-direction:column;gap:4px;border:2px dashed #8a8f99;border-radius:8px;padding:8px;margin-bottom:8px}
.media-upload.dragging{border-color:#1f4fd1;background:#e5ecfb}
.media-upload input{max-width:100%}
.media-upload progress{width:100%}
.media-search{display:flex;flex-direction:column;gap:4px}
.row-inline{display:flex;gap:6px}.row-inline input{flex:1;min-width:0}
.media-items{list-style:none;margin:0;padding:0;max-height:60vh;overflow-y:auto}
.media-items a{display:flex;gap:8px;align-items:center;padding:6px 8px;border-radius:6px;color:#1d2330;text-decoration:none;min-height:44px}
.media-items a[aria-current=true]{background:#e5ecfb}
.media-items img,.file-icon{width:64px;height:48px;object-fit:cover;border-radius:4px;flex:none;background:#eceff5}
.file-icon{display:flex;align-items:center;justify-content:center;font-size:.8rem;font-weight:700;color:#545b66}
.media-text{display:flex;flex-direction:column;min-width:0}
.media-text .who{font-weight:600;overflow-wrap:anywhere}.media-text .last{color:#545b66;font-size:.9rem}
.focal-preview{position:relative;display:inline-block;max-width:100%;cursor:crosshair;line-height:0}
.focal-preview img{max-width:100%;height:auto;max-height:320px;width:auto;border-radius:4px}
.focal-marker{position:absolute;width:20px;height:20px;margin:-10px 0 0 -10px;border:3px solid #fff;border-radius:50%;box-shadow:0 0 0 2px #1f4fd1,0 0 4px rgba(0,0,0,.6);pointer-events:none}
.media-fieldset{border:1px solid #e3e0d8;border-radius:6px;padding:8px;display:flex;flex-direction:column;gap:6px;margin:0;min-width:0}
.media-fieldset legend{font-weight:600;padding:0 4px}
.media-fieldset .muted{margin:0}
.focal-fields{display:flex;flex-wrap:wrap;gap:8px}.focal-fields .field{flex:1;min-width:120px}
.media-editor input[type=text]{width:100%}
#media-uses a{overflow-wrap:anywhere}
@media (max-width:900px){.media-library{grid-template-columns:1fr}}
@media (max-width:700px){.has-selection .media-list,.has-selection.media-library .placeholder{display:none}}
`;

let added = false;
export function addMediaStyle(): void {
  if (added) return;
  added = true;
  const style = document.createElement('style');
  style.textContent = MEDIA_CSS;
  document.head.append(style);
}
