import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

const DESCRIPTION = `Read-only API over the pools of the Hadron Solana program: pool list, fees per window,
midprice history and daily volume history. Every operation takes \`cluster\` (\`mainnet-beta\` default, or \`devnet\`).

Errors are \`{"statusCode":400,"message":"…","error":"Bad Request"}\` with one string message. Unknown query
parameters, repeated parameters and invalid values are 400s naming the parameter and its allowed values; an
address that is not a pool of the cluster is 404 \`Pool not found\`.

Money (\`*_usd\`, \`tvl\`, \`volume\`, \`fees\`) is in human units of the pool's quote token (USD for a USD quote).
Raw token amounts are JSON integers written with exact digits (they may exceed 2^53).`;

/** The OpenAPI 3 document, generated from the controllers and DTOs (committed as apps/api/openapi.json). */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Hadron Pool Analytics Read API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0.0')
    .addTag('pools', 'Pool list, fees, midprice and volume history')
    .addTag('ops', 'Health, readiness and metrics')
    .addServer('/', 'The API that serves this document')
    .build();
  // No credential of any kind (spec: Authentication not shown): said explicitly, for every operation.
  return { ...SwaggerModule.createDocument(app, config), security: [] };
}
