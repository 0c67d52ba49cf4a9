export class UpdateLog {
  end(): number { return 0; }
}
