export { createTestApp, multipartBody, JWT_SECRET, type TestApp } from './test-app.js';
