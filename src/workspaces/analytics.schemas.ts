import { z } from 'zod';

export const analyticsConfigSchema = z
  .object({ enabled: z.boolean(), websiteId: z.string().optional(), scriptUrl: z.string().optional() })
  .meta({ id: 'AnalyticsConfig' });
