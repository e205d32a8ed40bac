import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { DomainError, NotFoundError } from '@app/common';
import { capabilityFailure } from './capability-errors';

describe('capabilityFailure maps error kinds to JSON-RPC answers', () => {
  it('answers invalid_input as JSON-RPC invalid params, naming the tool and carrying the code', () => {
    let thrown: unknown;
    try {
      capabilityFailure(new DomainError('invalid_cursor', 'bad cursor', 'invalid_input'), 'list_tasks');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProtocolError);
    expect((thrown as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
    expect((thrown as ProtocolError).message).toContain('Invalid arguments for tool list_tasks: bad cursor');
    expect((thrown as ProtocolError).data).toEqual({ code: 'invalid_cursor' });
  });

  it.each([new NotFoundError('Task'), new DomainError('gone', 'It went', 'gone'), new DomainError('nope', 'No', 'forbidden')])(
    'answers any other kind as a tool error with its message and code ($code, $kind)',
    (error) => {
      expect(capabilityFailure(error, 'get_task')).toEqual({
        content: [{ type: 'text', text: error.message }],
        isError: true,
        _meta: { 'agent-gateway/error': { code: error.code } },
      });
    },
  );
});
