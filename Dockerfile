# Citrus: the API (compiled JavaScript) and the built web client in one image. Used by docker-compose.yml.
# Every workspace's package.json is copied before `npm ci`, so each workspace's dependencies are installed
# (test/dockerfile.test.ts checks the list against the workspaces).

# ---- every dependency, for the builds
FROM node:20-bookworm-slim AS deps
WORKDIR /app
ENV CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/contracts/package.json packages/contracts/
COPY packages/data-kit/package.json packages/data-kit/
RUN npm ci --no-audit --no-fund

# ---- the web client: apps/web/dist
FROM deps AS web
COPY tsconfig.base.json ./
COPY packages packages
COPY apps/web apps/web
RUN npm run build -w @citrus/web

# ---- the server: the Prisma client generated, then server, CLI and workspace packages bundled to apps/server/dist
FROM deps AS server
COPY tsconfig.base.json prisma.config.ts ./
COPY prisma prisma
COPY scripts scripts
COPY packages packages
COPY apps/server apps/server
RUN node scripts/ensure-generated.mjs && node scripts/build-server.mjs

# ---- production dependencies only
FROM node:20-bookworm-slim AS production-deps
WORKDIR /app
ENV CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/contracts/package.json packages/contracts/
COPY packages/data-kit/package.json packages/data-kit/
RUN npm ci --omit=dev --no-audit --no-fund

# ---- the image: node_modules, the workspace packages, migrations, compiled server and built client
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
COPY --from=production-deps /app ./
COPY packages packages
COPY prisma/migrations prisma/migrations
COPY --from=server /app/apps/server/dist apps/server/dist
COPY --from=web /app/apps/web/dist apps/web/dist
# DATA_DIR (./data): the embedded database when DATABASE_URL is unset
RUN mkdir -p data && chown node:node data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# operators' CLI: docker compose exec app node apps/server/dist/cli.js --help
CMD ["node", "apps/server/dist/main.js"]
