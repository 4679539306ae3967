import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { ApiConfig } from '../api.config';
import { API_CONFIG } from '../http/tokens';
import { LivenessDto, ReadinessDto } from './health.response.dto';
import { ReadinessCheck } from './readiness';

@ApiTags('ops')
@Controller('health')
export class HealthHttpController {
  constructor(
    private readonly readiness: ReadinessCheck,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'health', summary: 'Liveness: the process answers HTTP' })
  @ApiOkResponse({ type: LivenessDto })
  live(): LivenessDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    operationId: 'ready',
    summary: 'Readiness: the data is current (every cluster indexed near its head, every projection caught up) and the process is not shutting down',
    description:
      "Ready when the database answers within 800 ms, every cluster's active indexer has published within READY_MAX_STALENESS_S seconds that it is ready (backfilled, within its slot-lag threshold, RPC answering, no gap), every `projector:*` component has published a lag <= READY_MAX_LAG within READY_MAX_STALENESS_S seconds, a read replica (DATABASE_READ_URL) replays within READY_MAX_REPLICA_LAG_S seconds of its primary, and the pool list is loaded. " +
      "`detail.replica` gives the replica's replay position and lag (null on a primary); the statuses are then read from the replica, so they are as fresh as what it serves. " +
      '`detail.clusters` says per cluster how fresh the data is: indexed slot and its block time, chain head, lag in slots and seconds. ' +
      'From SIGTERM on it answers 503 (reason `shutting down`) while the API still serves for API_SHUTDOWN_GRACE_SECONDS, so a load balancer stops routing to it before it closes.',
  })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ type: ReadinessDto, description: 'Not ready; `detail.reasons` says why' })
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessDto> {
    const r = await this.readiness.check();
    void reply.code(r.ready ? 200 : 503);
    const status = r.ready ? 'ready' : 'not ready';
    // With an ops port, the public port says only ready or not; the details are the operator's.
    return this.config.API_OPS_PORT === undefined ? { status, detail: r.detail } : { status };
  }
}
