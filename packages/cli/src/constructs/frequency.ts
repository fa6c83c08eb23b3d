/**
 * How often a check runs, as the hosted CLI writes it (`frequency: Frequency.EVERY_10S`): minutes, or
 * frequency 0 with `frequencyOffset` seconds (API, URL, TCP, DNS, ICMP and SSL checks only). A plain
 * number of minutes works too.
 */
export class Frequency {
  static readonly EVERY_10S = new Frequency(0, 10)
  static readonly EVERY_20S = new Frequency(0, 20)
  static readonly EVERY_30S = new Frequency(0, 30)
  static readonly EVERY_1M = new Frequency(1)
  static readonly EVERY_2M = new Frequency(2)
  static readonly EVERY_5M = new Frequency(5)
  static readonly EVERY_10M = new Frequency(10)
  static readonly EVERY_15M = new Frequency(15)
  static readonly EVERY_30M = new Frequency(30)
  static readonly EVERY_1H = new Frequency(60)
  static readonly EVERY_2H = new Frequency(120)
  static readonly EVERY_3H = new Frequency(180)
  static readonly EVERY_6H = new Frequency(360)
  static readonly EVERY_12H = new Frequency(720)
  static readonly EVERY_24H = new Frequency(1440)

  readonly frequency: number
  readonly frequencyOffset: number | undefined

  constructor(frequency: number, frequencyOffset?: number) {
    this.frequency = frequency
    this.frequencyOffset = frequencyOffset
  }
}

/** The body fields a construct's `frequency` stands for. */
export function frequencyFields(frequency: unknown): Record<string, unknown> {
  if (!(frequency instanceof Frequency)) return frequency === undefined ? {} : { frequency }
  return frequency.frequencyOffset === undefined
    ? { frequency: frequency.frequency }
    : { frequency: frequency.frequency, frequencyOffset: frequency.frequencyOffset }
}
