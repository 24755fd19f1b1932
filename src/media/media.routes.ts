import { pipeline } from 'node:stream/promises';
import { route, type RouteDef } from '../http/route.js';
import { ifNoneMatchNames } from '../http/conditional-get.js';
import { deliverMedia, rememberedVariant, type Delivery, type VariantDelivery } from './delivery.service.js';
import type { CachedAnswer } from '../cache/caches.js';
import { getMedia, listMedia, toAdminMedia, updateMedia, uploadMedia } from './media.service.js';
import { deliveryParams, deliveryQuery, mediaListQuery, mediaPageSchema, mediaParams, mediaSchema, mediaWidParams, patchMediaBody, VARIANT_SIZES } from './media.schemas.js';

const tags = ['Media'];
const EDITORS_ONLY = 'Editors, owners and operators only (agents: 403).';
const FOREVER = 'public, max-age=31536000, immutable';
const A_WHILE = 'public, max-age=300';

/** What every delivered file says besides its type and ETag: how long it may be cached, and that it is no page. */
const deliveryHeaders = (delivery: Pick<Delivery, 'version'>, query: { v?: string }) => ({
  'Cache-Control': query.v === delivery.version ? FOREVER : A_WHILE,
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cross-Origin-Resource-Policy': 'cross-origin',
});

/** A variant as the writer keeps and sends it: its bytes, with its type and its tag as the ETag (made once per variant and lifetime). */
function variantAnswer(delivery: VariantDelivery, query: { v?: string }): CachedAnswer {
  const { variant } = delivery;
  const answers = (variant.answers ??= {});
  return (answers[query.v === delivery.version ? 'immutable' : 'revalidated'] ??= {
    bytes: variant.bytes,
    headers: { ...deliveryHeaders(delivery, query), 'Content-Type': variant.contentType, ETag: `"${delivery.tag}"` },
  });
}

export const mediaRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/media',
    summary: 'Upload a file to the media library',
    description:
      'Body: `multipart/form-data` with the file in a part named `file` (its file name becomes the name). Streamed: past ' +
      '`MEDIA_MAX_BYTES` (default 20 MB) the upload is refused while it arrives (413) and nothing is kept. The type is read ' +
      'from the bytes, never the name or Content-Type: JPEG, PNG, WebP, AVIF, GIF and PDF are accepted, anything else (SVG, ' +
      'HTML, ...) is 415. Images are re-encoded upright without metadata (EXIF, GPS, XMP are dropped) and refused when ' +
      `corrupt (400 \`corrupt_media\`) or larger than 40 megapixels (400 \`image_too_large\`). ${EDITORS_ONLY}`,
    tags,
    auth: 'member',
    role: 'editor',
    params: mediaWidParams,
    responses: {
      201: { description: 'Stored.', schema: mediaSchema },
      400: 'No `file` part, or a corrupt or oversized image.',
      413: 'Over the size limit.',
      415: 'Not an allowed type.',
      503: 'File storage unreachable (`Retry-After`).',
    },
    handle: async ({ deps, workspace, req }) => ({ status: 201, body: toAdminMedia(deps, workspace, await uploadMedia(deps, workspace, req)) }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/media',
    summary: 'The media library',
    description: 'Newest first, at most 100 a page (default 50); `q` keeps files whose name contains it, in any case.',
    tags,
    auth: 'member',
    params: mediaWidParams,
    query: mediaListQuery,
    responses: { 200: { description: 'One page.', schema: mediaPageSchema }, 400: 'Invalid paging.' },
    handle: async ({ deps, workspace, query }) => {
      const page = await listMedia(deps, workspace, query.q, { page: query.page, limit: query.limit });
      return { body: { items: page.items.map((media) => toAdminMedia(deps, workspace, media)), pageInfo: page.pageInfo } };
    },
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/media/:mid',
    summary: 'One file of the media library',
    tags,
    auth: 'member',
    params: mediaParams,
    responses: { 200: { description: 'The file.', schema: mediaSchema }, 404: 'No such file in this workspace.' },
    handle: async ({ deps, workspace, params }) => ({ body: toAdminMedia(deps, workspace, await getMedia(deps, workspace, params.mid)) }),
  }),
  route({
    method: 'patch',
    path: '/admin/workspaces/:wid/media/:mid',
    summary: 'Rename a file, set its alt texts or focal point',
    description: `\`alt\` replaces the whole map of texts; its keys must be locales of the workspace. A new focal point changes the file's \`url\` (its version). Cached \`/external\` post answers that show the file (its URL, alt text or size) are dropped at once. ${EDITORS_ONLY}`,
    tags,
    auth: 'member',
    role: 'editor',
    params: mediaParams,
    body: patchMediaBody,
    responses: { 200: { description: 'Updated.', schema: mediaSchema }, 400: 'Invalid body.', 404: 'No such file in this workspace.' },
    handle: async ({ deps, workspace, params, body }) => ({ body: toAdminMedia(deps, workspace, await updateMedia(deps, workspace, params.mid, body)) }),
  }),
  route({
    method: 'get',
    path: '/media/:workspace/:id/:name',
    summary: 'A media file, or a resized variant of an image',
    description:
      '`:workspace` is the workspace slug, `:name` any name (the library gives the file name). Without `w`, `h` or `fm` the stored ' +
      `file is answered; with them an image variant: \`w\` and \`h\` each one of ${VARIANT_SIZES.join(', ')} (anything else 400, so ` +
      'the sizes that can be rendered are bounded), `fit` `inside` (default: within the box, never enlarged), `contain` (the whole ' +
      'image, letterboxed) or `cover` (fills the box, cropped around the focal point), `fm` `webp`, `avif` or `jpeg` (default: the ' +
      "original's format, WebP for PNG and GIF). With the `v` the library's `url` carries, the answer is `Cache-Control: " +
      `${FOREVER}\`; without it, five minutes. Every answer has an \`ETag\` (304 on \`If-None-Match\`) and \`X-Content-Type-Options: ` +
      'nosniff`; PDFs are served as attachments.',
    tags,
    auth: 'none',
    params: deliveryParams,
    query: deliveryQuery,
    responses: { 200: 'The bytes.', 304: 'Not modified.', 400: 'A size, fit or format outside the allowed set, or a variant of a PDF.', 404: 'No such file.' },
    // A variant this node holds (its file's record remembered) is a kept answer: served before Express when
    // warm, and by the handler through the same writer otherwise (its ETag and 304 decided there).
    remembered: (deps, params, query) => {
      const delivery = rememberedVariant(deps, params.workspace, params.id, query);
      return delivery && variantAnswer(delivery, query);
    },
    handle: async ({ deps, req, res, params, query }) => {
      const delivery = await deliverMedia(deps, params.workspace, params.id, query);
      if (delivery.kind === 'variant') return { kept: variantAnswer(delivery, query) };
      const { media, object } = delivery;
      if (media.contentType === 'application/pdf') res.attachment(media.name);
      const etag = `"${delivery.version}"`;
      // If-None-Match is evaluated here, not by Express's freshness check (see `conditionalGet`).
      res.set({ ...deliveryHeaders(delivery, query), 'Content-Type': media.contentType, ETag: etag });
      if (ifNoneMatchNames(req, etag)) {
        object.body.destroy();
        res.status(304).end();
      } else {
        res.setHeader('Content-Length', String(object.size));
        await pipeline(object.body, res.status(200));
      }
      return {};
    },
  }),
];
