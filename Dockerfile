# One image, three deployables (indexer, projector, api) and the one-process default.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/scripts/register-aliases.js ./scripts/register-aliases.js
COPY package.json ./
USER node
# Override per service: dist/apps/{api,indexer,projector,main}/src/main.js
CMD ["node", "--max-semi-space-size=128", "-r", "./scripts/register-aliases.js", "dist/apps/main/src/main.js"]
