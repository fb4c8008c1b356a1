// Placeholder: replaced by the admin API (owned by S2).
import type { FastifyPluginAsync } from 'fastify';

export const adminRoutes: FastifyPluginAsync<Record<string, unknown>> = async () => {};
