/**
 * Scan's errors: every one is `{"error": "<message>"}` (common-external.yaml `ErrorResponse`),
 * with the HTTP status Splice's `HttpErrorHandler` maps the gRPC status to
 * (`apps/common/.../admin/http/HttpErrorHandler.scala`): NOT_FOUND 404, INVALID_ARGUMENT / FAILED_PRECONDITION /
 * UNIMPLEMENTED 400, UNAVAILABLE 503, anything unexpected 500 "An unexpected error occurred.".
 */
export class ScanError extends Error {
  constructor(
    readonly status: 400 | 404 | 405 | 409 | 500 | 503,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ScanError(400, message);
export const notFound = (message: string) => new ScanError(404, message);

/** Page limits of `Limit.scala` (DefaultMaxPageSize = 1000; also `updateHistoryMaxPageSize`). */
export const MAX_PAGE_SIZE = 1000;
/** `HttpRequestLimits.MaxRequestArrayItems`: the `maxItems` of Splice main's scan.yaml request arrays. */
export const MAX_REQUEST_ARRAY_ITEMS = 1000;

export function checkPageSize(n: number, max = MAX_PAGE_SIZE): void {
  if (n > max) throw badRequest(`Exceeded limit maximum (${n} > ${max}).`);
  if (n < 1) throw badRequest('Limit must be at least 1.');
}

/** The handler-side `maxItems` check of Splice main (`HttpScanHandlerRequestLimitsTest`): snake_case field names. */
export function checkMaxItems(field: string, items: readonly unknown[] | undefined): void {
  if (items && items.length > MAX_REQUEST_ARRAY_ITEMS) {
    throw badRequest(`Expected '${field}' to contain at most ${MAX_REQUEST_ARRAY_ITEMS} items, but contained ${items.length}.`);
  }
}
