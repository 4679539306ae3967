// Regenerates libs/client/src/openapi.ts from apps/api/openapi.json (npm run client:generate).
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, generateClientTypes } from './generate-client-types';

writeFileSync(CLIENT_TYPES_FILE, generateClientTypes());
process.stdout.write(`wrote ${CLIENT_TYPES_FILE}\n`);
