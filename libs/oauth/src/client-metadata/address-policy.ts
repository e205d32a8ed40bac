/** The address rule lives with the fetcher it guards (`@app/outbound`); re-exported for this folder. */
export { addressProblem, ipLiteral } from '@app/outbound';
