import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { LivenessDto, ReadinessDto } from './health.response.dto';
import { ReadinessCheck } from './readiness';

@ApiTags('ops')
@Controller('health')
export class HealthHttpController {
  constructor(private readonly readiness: ReadinessCheck) {}

  @Get()
  @ApiOperation({ operationId: 'health', summary: 'Liveness: the process answers HTTP' })
  @ApiOkResponse({ type: LivenessDto })
  live(): LivenessDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    operationId: 'ready',
    summary: 'Readiness: the database answers and every projection is caught up',
    description: 'Ready when the database answers, every `projector:*` component has published a lag <= READY_MAX_LAG within READY_MAX_STALENESS_S seconds, and the pool list is loaded.',
  })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ type: ReadinessDto, description: 'Not ready; `detail.reasons` says why' })
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessDto> {
    const r = await this.readiness.check();
    void reply.code(r.ready ? 200 : 503);
    return { status: r.ready ? 'ready' : 'not ready', detail: r.detail };
  }
}
