import type { RouteDef } from '../http/route.js';

export const webhooksRoutes: RouteDef[] = [];
