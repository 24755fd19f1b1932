# syntax=docker/dockerfile:1
# Build stage: compile TypeScript and the widget bundle with dev dependencies, then drop them.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY widget ./widget
COPY console ./console
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies, compiled output and the widget bundle; runs as non-root.
FROM node:20-bookworm-slim
# Two malloc arenas: image work (sharp/libvips on many threads) otherwise leaves glibc holding memory per
# thread; bench:media measured the node's peak during 100 concurrent uploads at 392 MB without, 329 MB with.
ENV NODE_ENV=production PORT=3000 MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/public ./public
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/main.js"]
