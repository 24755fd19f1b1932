import type { RouteDef } from '../http/route.js';

export const appointmentsRoutes: RouteDef[] = [];
