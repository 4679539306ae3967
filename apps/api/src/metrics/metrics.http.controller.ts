import { Controller, Get, Header, Inject, NotFoundException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { ApiConfig } from '../api.config';
import { API_CONFIG } from '../http/tokens';
import { ApiMetrics } from './api-metrics';

@ApiTags('ops')
@Controller('metrics')
export class MetricsHttpController {
  constructor(
    private readonly metrics: ApiMetrics,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ operationId: 'metrics', summary: 'Prometheus metrics (text exposition format); 404 here when API_OPS_PORT moves them to the ops port' })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Metrics, e.g. hadron_api_request_duration_seconds by method, route and status_code',
    schema: { type: 'string', example: 'hadron_api_request_duration_seconds_count{method="GET",route="/pools",status_code="200"} 42' },
  })
  async scrape(): Promise<string> {
    if (this.config.API_OPS_PORT !== undefined) throw new NotFoundException(); // served on the ops port
    return this.metrics.registry.metrics();
  }
}
