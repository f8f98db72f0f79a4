// The package ships no types; this is the shape it returns for gauges and counters.
declare module 'parse-prometheus-text-format' {
  export interface MetricFamily {
    name: string;
    help: string;
    type: string;
    metrics: { value?: string; labels?: Record<string, string> }[];
  }
  export default function parse(text: string): MetricFamily[];
}
