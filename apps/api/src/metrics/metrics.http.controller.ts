import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiMetrics } from './api-metrics';

@ApiTags('ops')
@Controller('metrics')
export class MetricsHttpController {
  constructor(private readonly metrics: ApiMetrics) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ operationId: 'metrics', summary: 'Prometheus metrics (text exposition format)' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Metrics, e.g. hadron_api_request_duration_seconds by method, route and status_code', schema: { type: 'string', example: 'hadron_api_request_duration_seconds_count{method="GET",route="/pools",status_code="200"} 42' } })
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
