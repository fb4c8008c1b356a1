export { createTestApp, multipartBody, JWT_SECRET, type TestApp } from './test-app.js';
export { TEST_METRICS_TOKEN, testConfig } from './test-config.js';
export { sessionCredentialInput } from './credential-input.js';
export { SseReader, type SseMessage } from './sse-reader.js';
