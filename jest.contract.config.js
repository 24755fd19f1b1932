/**
 * The second step of `npm test`: replays the answers the main run recorded (RECORD_RESPONSES_DIR,
 * see test/support/global-setup.ts) against the OpenAPI document's response schemas. No database.
 */
import { shared } from './jest.config.js';

export default {
  ...shared,
  testMatch: ['<rootDir>/test/**/*.contract.ts'],
  testTimeout: 60000,
};
